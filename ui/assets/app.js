// Built by scripts/build-ui.mjs from ui/src and src/client. Do not edit.
var Ke=globalThis,ft=n=>n,Ae=Ke.trustedTypes,gt=Ae?Ae.createPolicy("lit-html",{createHTML:n=>n}):void 0,Ye="$lit$",j=`lit$${Math.random().toFixed(9).slice(2)}$`,Je="?"+j,An=`<${Je}>`,ee=document,me=()=>ee.createComment(""),fe=n=>n===null||typeof n!="object"&&typeof n!="function",Qe=Array.isArray,_t=n=>Qe(n)||typeof n?.[Symbol.iterator]=="function",Ge=`[ 	
\f\r]`,he=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,$t=/-->/g,yt=/>/g,X=RegExp(`>|${Ge}(?:([^\\s"'>=/]+)(${Ge}*=${Ge}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),vt=/'/g,bt=/"/g,xt=/^(?:script|style|textarea|title)$/i,ze=n=>(e,...t)=>({_$litType$:n,strings:e,values:t}),c=ze(1),$e=ze(2),ts=ze(3),te=Symbol.for("lit-noChange"),y=Symbol.for("lit-nothing"),wt=new WeakMap,Z=ee.createTreeWalker(ee,129);function kt(n,e){if(!Qe(n)||!n.hasOwnProperty("raw"))throw Error("invalid template strings array");return gt!==void 0?gt.createHTML(e):e}var St=(n,e)=>{let t=n.length-1,o=[],r,i=e===2?"<svg>":e===3?"<math>":"",l=he;for(let g=0;g<t;g++){let u=n[g],f,p,m=-1,$=0;for(;$<u.length&&(l.lastIndex=$,p=l.exec(u),p!==null);)$=l.lastIndex,l===he?p[1]==="!--"?l=$t:p[1]!==void 0?l=yt:p[2]!==void 0?(xt.test(p[2])&&(r=RegExp("</"+p[2],"g")),l=X):p[3]!==void 0&&(l=X):l===X?p[0]===">"?(l=r??he,m=-1):p[1]===void 0?m=-2:(m=l.lastIndex-p[2].length,f=p[1],l=p[3]===void 0?X:p[3]==='"'?bt:vt):l===bt||l===vt?l=X:l===$t||l===yt?l=he:(l=X,r=void 0);let v=l===X&&n[g+1].startsWith("/>")?" ":"";i+=l===he?u+An:m>=0?(o.push(f),u.slice(0,m)+Ye+u.slice(m)+j+v):u+j+(m===-2?g:v)}return[kt(n,i+(n[t]||"<?>")+(e===2?"</svg>":e===3?"</math>":"")),o]},ge=class n{constructor({strings:e,_$litType$:t},o){let r;this.parts=[];let i=0,l=0,g=e.length-1,u=this.parts,[f,p]=St(e,t);if(this.el=n.createElement(f,o),Z.currentNode=this.el.content,t===2||t===3){let m=this.el.content.firstChild;m.replaceWith(...m.childNodes)}for(;(r=Z.nextNode())!==null&&u.length<g;){if(r.nodeType===1){if(r.hasAttributes())for(let m of r.getAttributeNames())if(m.endsWith(Ye)){let $=p[l++],v=r.getAttribute(m).split(j),w=/([.?@])?(.*)/.exec($);u.push({type:1,index:i,name:w[2],strings:v,ctor:w[1]==="."?Ce:w[1]==="?"?Ie:w[1]==="@"?Re:se}),r.removeAttribute(m)}else m.startsWith(j)&&(u.push({type:6,index:i}),r.removeAttribute(m));if(xt.test(r.tagName)){let m=r.textContent.split(j),$=m.length-1;if($>0){r.textContent=Ae?Ae.emptyScript:"";for(let v=0;v<$;v++)r.append(m[v],me()),Z.nextNode(),u.push({type:2,index:++i});r.append(m[$],me())}}}else if(r.nodeType===8)if(r.data===Je)u.push({type:2,index:i});else{let m=-1;for(;(m=r.data.indexOf(j,m+1))!==-1;)u.push({type:7,index:i}),m+=j.length-1}i++}}static createElement(e,t){let o=ee.createElement("template");return o.innerHTML=e,o}};function ne(n,e,t=n,o){if(e===te)return e;let r=o!==void 0?t._$Co?.[o]:t._$Cl,i=fe(e)?void 0:e._$litDirective$;return r?.constructor!==i&&(r?._$AO?.(!1),i===void 0?r=void 0:(r=new i(n),r._$AT(n,t,o)),o!==void 0?(t._$Co??=[])[o]=r:t._$Cl=r),r!==void 0&&(e=ne(n,r._$AS(n,e.values),r,o)),e}var Ee=class{constructor(e,t){this._$AV=[],this._$AN=void 0,this._$AD=e,this._$AM=t}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(e){let{el:{content:t},parts:o}=this._$AD,r=(e?.creationScope??ee).importNode(t,!0);Z.currentNode=r;let i=Z.nextNode(),l=0,g=0,u=o[0];for(;u!==void 0;){if(l===u.index){let f;u.type===2?f=new ce(i,i.nextSibling,this,e):u.type===1?f=new u.ctor(i,u.name,u.strings,this,e):u.type===6&&(f=new Pe(i,this,e)),this._$AV.push(f),u=o[++g]}l!==u?.index&&(i=Z.nextNode(),l++)}return Z.currentNode=ee,r}p(e){let t=0;for(let o of this._$AV)o!==void 0&&(o.strings!==void 0?(o._$AI(e,o,t),t+=o.strings.length-2):o._$AI(e[t])),t++}},ce=class n{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(e,t,o,r){this.type=2,this._$AH=y,this._$AN=void 0,this._$AA=e,this._$AB=t,this._$AM=o,this.options=r,this._$Cv=r?.isConnected??!0}get parentNode(){let e=this._$AA.parentNode,t=this._$AM;return t!==void 0&&e?.nodeType===11&&(e=t.parentNode),e}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(e,t=this){e=ne(this,e,t),fe(e)?e===y||e==null||e===""?(this._$AH!==y&&this._$AR(),this._$AH=y):e!==this._$AH&&e!==te&&this._(e):e._$litType$!==void 0?this.$(e):e.nodeType!==void 0?this.T(e):_t(e)?this.k(e):this._(e)}O(e){return this._$AA.parentNode.insertBefore(e,this._$AB)}T(e){this._$AH!==e&&(this._$AR(),this._$AH=this.O(e))}_(e){this._$AH!==y&&fe(this._$AH)?this._$AA.nextSibling.data=e:this.T(ee.createTextNode(e)),this._$AH=e}$(e){let{values:t,_$litType$:o}=e,r=typeof o=="number"?this._$AC(e):(o.el===void 0&&(o.el=ge.createElement(kt(o.h,o.h[0]),this.options)),o);if(this._$AH?._$AD===r)this._$AH.p(t);else{let i=new Ee(r,this),l=i.u(this.options);i.p(t),this.T(l),this._$AH=i}}_$AC(e){let t=wt.get(e.strings);return t===void 0&&wt.set(e.strings,t=new ge(e)),t}k(e){Qe(this._$AH)||(this._$AH=[],this._$AR());let t=this._$AH,o,r=0;for(let i of e)r===t.length?t.push(o=new n(this.O(me()),this.O(me()),this,this.options)):o=t[r],o._$AI(i),r++;r<t.length&&(this._$AR(o&&o._$AB.nextSibling,r),t.length=r)}_$AR(e=this._$AA.nextSibling,t){for(this._$AP?.(!1,!0,t);e!==this._$AB;){let o=ft(e).nextSibling;ft(e).remove(),e=o}}setConnected(e){this._$AM===void 0&&(this._$Cv=e,this._$AP?.(e))}},se=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(e,t,o,r,i){this.type=1,this._$AH=y,this._$AN=void 0,this.element=e,this.name=t,this._$AM=r,this.options=i,o.length>2||o[0]!==""||o[1]!==""?(this._$AH=Array(o.length-1).fill(new String),this.strings=o):this._$AH=y}_$AI(e,t=this,o,r){let i=this.strings,l=!1;if(i===void 0)e=ne(this,e,t,0),l=!fe(e)||e!==this._$AH&&e!==te,l&&(this._$AH=e);else{let g=e,u,f;for(e=i[0],u=0;u<i.length-1;u++)f=ne(this,g[o+u],t,u),f===te&&(f=this._$AH[u]),l||=!fe(f)||f!==this._$AH[u],f===y?e=y:e!==y&&(e+=(f??"")+i[u+1]),this._$AH[u]=f}l&&!r&&this.j(e)}j(e){e===y?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,e??"")}},Ce=class extends se{constructor(){super(...arguments),this.type=3}j(e){this.element[this.name]=e===y?void 0:e}},Ie=class extends se{constructor(){super(...arguments),this.type=4}j(e){this.element.toggleAttribute(this.name,!!e&&e!==y)}},Re=class extends se{constructor(e,t,o,r,i){super(e,t,o,r,i),this.type=5}_$AI(e,t=this){if((e=ne(this,e,t,0)??y)===te)return;let o=this._$AH,r=e===y&&o!==y||e.capture!==o.capture||e.once!==o.once||e.passive!==o.passive,i=e!==y&&(o===y||r);r&&this.element.removeEventListener(this.name,this,o),i&&this.element.addEventListener(this.name,this,e),this._$AH=e}handleEvent(e){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,e):this._$AH.handleEvent(e)}},Pe=class{constructor(e,t,o){this.element=e,this.type=6,this._$AN=void 0,this._$AM=t,this.options=o}get _$AU(){return this._$AM._$AU}_$AI(e){ne(this,e)}},Tt={M:Ye,P:j,A:Je,C:1,L:St,R:Ee,D:_t,V:ne,I:ce,H:se,N:Ie,U:Re,B:Ce,F:Pe},En=Ke.litHtmlPolyfillSupport;En?.(ge,ce),(Ke.litHtmlVersions??=[]).push("3.3.3");var re=(n,e,t)=>{let o=t?.renderBefore??e,r=o._$litPart$;if(r===void 0){let i=t?.renderBefore??null;o._$litPart$=r=new ce(e.insertBefore(me(),i),i,void 0,t??{})}return r._$AI(n),r};var At={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},Et=n=>(...e)=>({_$litDirective$:n,values:e}),qe=class{constructor(e){}get _$AU(){return this._$AM._$AU}_$AT(e,t,o){this._$Ct=e,this._$AM=t,this._$Ci=o}_$AS(e,t){return this.update(e,t)}update(e,t){return this.render(...t)}};var{I:Cn}=Tt,Ct=n=>n;var It=()=>document.createComment(""),de=(n,e,t)=>{let o=n._$AA.parentNode,r=e===void 0?n._$AB:e._$AA;if(t===void 0){let i=o.insertBefore(It(),r),l=o.insertBefore(It(),r);t=new Cn(i,l,n,n.options)}else{let i=t._$AB.nextSibling,l=t._$AM,g=l!==n;if(g){let u;t._$AQ?.(n),t._$AM=n,t._$AP!==void 0&&(u=n._$AU)!==l._$AU&&t._$AP(u)}if(i!==r||g){let u=t._$AA;for(;u!==i;){let f=Ct(u).nextSibling;Ct(o).insertBefore(u,r),u=f}}}return t},K=(n,e,t=n)=>(n._$AI(e,t),n),In={},Rt=(n,e=In)=>n._$AH=e,Pt=n=>n._$AH,Le=n=>{n._$AR(),n._$AA.remove()};var qt=(n,e,t)=>{let o=new Map;for(let r=e;r<=t;r++)o.set(n[r],r);return o},ye=Et(class extends qe{constructor(n){if(super(n),n.type!==At.CHILD)throw Error("repeat() can only be used in text expressions")}dt(n,e,t){let o;t===void 0?t=e:e!==void 0&&(o=e);let r=[],i=[],l=0;for(let g of n)r[l]=o?o(g,l):l,i[l]=t(g,l),l++;return{values:i,keys:r}}render(n,e,t){return this.dt(n,e,t).values}update(n,[e,t,o]){let r=Pt(n),{values:i,keys:l}=this.dt(e,t,o);if(!Array.isArray(r))return this.ut=l,i;let g=this.ut??=[],u=[],f,p,m=0,$=r.length-1,v=0,w=i.length-1;for(;m<=$&&v<=w;)if(r[m]===null)m++;else if(r[$]===null)$--;else if(g[m]===l[v])u[v]=K(r[m],i[v]),m++,v++;else if(g[$]===l[w])u[w]=K(r[$],i[w]),$--,w--;else if(g[m]===l[w])u[w]=K(r[m],i[w]),de(n,u[w+1],r[m]),m++,w--;else if(g[$]===l[v])u[v]=K(r[$],i[v]),de(n,r[m],r[$]),$--,v++;else if(f===void 0&&(f=qt(l,v,w),p=qt(g,m,$)),f.has(g[m]))if(f.has(g[$])){let E=p.get(l[v]),d=E!==void 0?r[E]:null;if(d===null){let k=de(n,r[m]);K(k,i[v]),u[v]=k}else u[v]=K(d,i[v]),de(n,r[m],d),r[E]=null;v++}else Le(r[$]),$--;else Le(r[m]),m++;for(;v<=w;){let E=de(n,u[w+1]);K(E,i[v]),u[v++]=E}for(;m<=$;){let E=r[m++];E!==null&&Le(E)}return this.ut=l,Rt(n,u),te}});(!globalThis.EventTarget||!globalThis.Event)&&console.error(`
  PartySocket requires a global 'EventTarget' class to be available!
  You can polyfill this global by adding this to your code before any partysocket imports: 
  
  \`\`\`
  import 'partysocket/event-target-polyfill';
  \`\`\`
  Please file an issue at https://github.com/partykit/partykit if you're still having trouble.
`);var Mt=class extends Event{message;error;constructor(n,e){super("error",e),this.message=n.message,this.error=n}},Nt=class extends Event{code;reason;wasClean=!0;constructor(n=1e3,e="",t){super("close",t),this.code=n,this.reason=e}},Xe={Event,ErrorEvent:Mt,CloseEvent:Nt};function Rn(n,e){if(!n)throw new Error(e)}function Pn(n){return new n.constructor(n.type,n)}function qn(n){return"data"in n?new MessageEvent(n.type,n):"code"in n||"reason"in n?new Nt(n.code||1999,n.reason||"unknown reason",n):"error"in n?new Mt(n.error,n):new Event(n.type,n)}var Ln=typeof process<"u"&&typeof process.versions?.node<"u",Mn=typeof navigator<"u"&&navigator.product==="ReactNative",Me=Ln||Mn?qn:Pn,oe={maxReconnectionDelay:1e4,minReconnectionDelay:3e3,minUptime:5e3,reconnectionDelayGrowFactor:1.3,connectionTimeout:4e3,maxRetries:Number.POSITIVE_INFINITY,maxEnqueuedMessages:Number.POSITIVE_INFINITY,startClosed:!1,debug:!1},Lt=!1;function Nn(){}var Ot=class Y extends EventTarget{_ws;_retryCount=-1;_uptimeTimeout;_connectTimeout;_shouldReconnect=!0;_connectLock=!1;_binaryType="blob";_closeCalled=!1;_didWarnAboutClosedSend=!1;_messageQueue=[];_debugLogger=console.log.bind(console);_url;_protocols;_options;constructor(e,t,o={}){super(),this._url=e,this._protocols=t,this._options=o,this._options.startClosed&&(this._shouldReconnect=!1),this._options.debugLogger&&(this._debugLogger=this._options.debugLogger),this._connect()}static get CONNECTING(){return 0}static get OPEN(){return 1}static get CLOSING(){return 2}static get CLOSED(){return 3}get CONNECTING(){return Y.CONNECTING}get OPEN(){return Y.OPEN}get CLOSING(){return Y.CLOSING}get CLOSED(){return Y.CLOSED}get binaryType(){return this._ws?this._ws.binaryType:this._binaryType}set binaryType(e){this._binaryType=e,this._ws&&(this._ws.binaryType=e)}get retryCount(){return Math.max(this._retryCount,0)}get bufferedAmount(){return this._messageQueue.reduce((e,t)=>(typeof t=="string"?e+=t.length:t instanceof Blob?e+=t.size:e+=t.byteLength,e),0)+(this._ws?this._ws.bufferedAmount:0)}get extensions(){return this._ws?this._ws.extensions:""}get protocol(){return this._ws?this._ws.protocol:""}get readyState(){return this._closeCalled?Y.CLOSED:this._ws?this._ws.readyState:this._options.startClosed?Y.CLOSED:Y.CONNECTING}get url(){return this._ws?this._ws.url:""}get shouldReconnect(){return this._shouldReconnect}onclose=null;onerror=null;onmessage=null;onopen=null;close(e=1e3,t){if(this._closeCalled=!0,this._shouldReconnect=!1,this._clearTimeouts(),!this._ws){this._debug("close enqueued: no ws instance");return}if(this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING){this._debug("close: already closing or closed");return}this._disconnect(e,t)}reconnect(e,t){this._shouldReconnect=!0,this._closeCalled=!1,this._didWarnAboutClosedSend=!1,this._retryCount=-1,!this._ws||this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING?this._connect():(this._disconnect(e,t),this._connect())}send(e){if(this._ws&&this._ws.readyState===this.OPEN)return this._debug("send",e),this._ws.send(e),!0;this._closeCalled&&!this._didWarnAboutClosedSend&&(this._didWarnAboutClosedSend=!0,console.warn("ReconnectingWebSocket: send() was called after close(). The message has been buffered, but it will only be delivered if reconnect() is called on this socket. If this socket has been discarded, the message is lost — this usually means a stale socket reference is being used."));let{maxEnqueuedMessages:t=oe.maxEnqueuedMessages}=this._options;return this._messageQueue.length<t&&(this._debug("enqueue",e),this._messageQueue.push(e)),!1}drainQueuedMessages(){let e=this._messageQueue;return this._messageQueue=[],e}_debug(...e){this._options.debug&&this._debugLogger("RWS>",...e)}_getNextDelay(){let{reconnectionDelayGrowFactor:e=oe.reconnectionDelayGrowFactor,minReconnectionDelay:t=oe.minReconnectionDelay,maxReconnectionDelay:o=oe.maxReconnectionDelay}=this._options,r=0;return this._retryCount>0&&(r=t*e**(this._retryCount-1),r>o&&(r=o)),this._debug("next delay",r),r}_wait(){return new Promise(e=>{setTimeout(e,this._getNextDelay())})}_getNextProtocols(e){if(!e)return Promise.resolve(null);if(typeof e=="string"||Array.isArray(e))return Promise.resolve(e);if(typeof e=="function"){let t=e();if(!t)return Promise.resolve(null);if(typeof t=="string"||Array.isArray(t))return Promise.resolve(t);if(t.then)return t}throw Error("Invalid protocols")}_getNextUrl(e){if(typeof e=="string")return Promise.resolve(e);if(typeof e=="function"){let t=e();if(typeof t=="string")return Promise.resolve(t);if(t.then)return t}throw Error("Invalid URL")}_connect(){if(this._connectLock||!this._shouldReconnect)return;this._connectLock=!0;let{maxRetries:e=oe.maxRetries,connectionTimeout:t=oe.connectionTimeout}=this._options;if(this._retryCount>=e){this._debug("max retries reached",this._retryCount,">=",e),this._connectLock=!1;return}this._retryCount++,this._debug("connect",this._retryCount),this._removeListeners(),this._wait().then(()=>Promise.all([this._getNextUrl(this._url),this._getNextProtocols(this._protocols||null)])).then(([o,r])=>{if(this._closeCalled){this._connectLock=!1;return}!this._options.WebSocket&&typeof WebSocket>"u"&&!Lt&&(console.error(`‼️ No WebSocket implementation available. You should define options.WebSocket. 

For example, if you're using node.js, run \`npm install ws\`, and then in your code:

import PartySocket from 'partysocket';
import WS from 'ws';

const partysocket = new PartySocket({
  host: "127.0.0.1:1999",
  room: "test-room",
  WebSocket: WS
});

`),Lt=!0);let i=this._options.WebSocket||WebSocket;this._debug("connect",{url:o,protocols:r}),this._ws=r?new i(o,r):new i(o),this._ws.binaryType=this._binaryType,this._connectLock=!1,this._addListeners(),this._connectTimeout=setTimeout(()=>this._handleTimeout(),t)}).catch(o=>{this._connectLock=!1,this._handleError(new Xe.ErrorEvent(Error(o.message),this))})}_handleTimeout(){this._debug("timeout event"),this._handleError(new Xe.ErrorEvent(Error("TIMEOUT"),this))}_disconnect(e=1e3,t){if(this._clearTimeouts(),!!this._ws){this._removeListeners();try{(this._ws.readyState===this.OPEN||this._ws.readyState===this.CONNECTING)&&this._ws.close(e,t),this._handleClose(new Xe.CloseEvent(e,t,this))}catch{}}}_acceptOpen(){this._debug("accept open"),this._retryCount=0}_handleOpen=e=>{this._debug("open event");let{minUptime:t=oe.minUptime}=this._options;clearTimeout(this._connectTimeout),this._uptimeTimeout=setTimeout(()=>this._acceptOpen(),t),Rn(this._ws,"WebSocket is not defined"),this._ws.binaryType=this._binaryType,this._messageQueue.forEach(o=>{this._ws?.send(o)}),this._messageQueue=[],this.onopen&&this.onopen(e),this.dispatchEvent(Me(e))};_handleMessage=e=>{this._debug("message event"),this.onmessage&&this.onmessage(e),this.dispatchEvent(Me(e))};_handleError=e=>{this._debug("error event",e.message),this._disconnect(void 0,e.message==="TIMEOUT"?"timeout":void 0),this.onerror&&this.onerror(e),this._debug("exec error listeners"),this.dispatchEvent(Me(e)),this._connect()};_handleClose=e=>{this._debug("close event"),this._clearTimeouts(),this._options.shouldReconnectOnClose&&!this._options.shouldReconnectOnClose(e)&&(this._shouldReconnect=!1),this._shouldReconnect&&this._connect(),this.onclose&&this.onclose(e),this.dispatchEvent(Me(e))};_removeListeners(){this._ws&&(this._debug("removeListeners"),this._ws.removeEventListener("open",this._handleOpen),this._ws.removeEventListener("close",this._handleClose),this._ws.removeEventListener("message",this._handleMessage),this._ws.removeEventListener("error",this._handleError),this._ws.addEventListener("error",Nn))}_addListeners(){this._ws&&(this._debug("addListeners"),this._ws.addEventListener("open",this._handleOpen),this._ws.addEventListener("close",this._handleClose),this._ws.addEventListener("message",this._handleMessage),this._ws.addEventListener("error",this._handleError))}_clearTimeouts(){clearTimeout(this._connectTimeout),clearTimeout(this._uptimeTimeout)}};var Dt={not_configured:503,unauthorized:401,forbidden:403,rate_limited:429,payload_too_large:413,not_found:404,method_not_allowed:405,bad_request:400,conflict:409,internal:500};var Ht=Dt,N=class extends Error{status;code;constructor(e,t,o,r){super(o,r),this.name="HighwaterError",this.status=e,this.code=t}};function Ne(){let n=crypto.getRandomValues(new Uint8Array(16));return`k-${Array.from(n,e=>e.toString(16).padStart(2,"0")).join("")}`}var On=7e3,Dn=2e4;function Wt(n,e,t){let o=n.WebSocket??globalThis.WebSocket;if(!o)throw new Error("no WebSocket implementation: pass `WebSocket` (e.g. from the ws package)");let r=t.auth??(n.WebSocket&&n.token?"header":"ticket"),i=t.pingEveryMs??On,l=t.silenceMs??Dn,g=n.baseUrl.replace(/^http/,"ws"),u=n.token,f=t.after??0,p="connecting",m=!1,$=!1,v=Date.now(),w=0,E=t.ticket,d=new Map,k=T=>{T!==p&&(p=T,t.onState?.(T))},_=()=>{for(let T of d.values())T.reject(new N(0,"disconnected","the socket closed before an answer"));d.clear()},O=()=>{_(),$||k(m?"reconnecting":"connecting")},H=async()=>{try{for await(let T of n.history(e,f))for(let q of T){if($)return;if(!(q.seq<=f)){if(q.seq!==f+1)return;f=q.seq,t.onFrame({type:"event",event:q})}}}catch{}},x=async()=>{(t.catchUp??"pages")==="pages"&&await H();let T=`${g}/v1/sessions/${encodeURIComponent(e)}/ws?after=${f}`;if(r==="ticket"){let q=E;if(E=void 0,!q)try{q=(await n.createTicket(e)).ticket}catch(C){let D=C;throw[401,403,404,503].includes(D.status)&&W(D),C}T+=`&ticket=${encodeURIComponent(q)}`}return T},b=r==="header"&&u?function(q){return new o(q,{headers:{authorization:`Bearer ${u}`}})}:o,M=new Ot(x,null,{WebSocket:b,minReconnectionDelay:t.minDelayMs??250,maxReconnectionDelay:t.maxDelayMs??1e4,reconnectionDelayGrowFactor:2,connectionTimeout:2e4}),W=T=>{$||($=!0,clearInterval(Q),M.close(1e3,"gave up"),_(),k("closed"),t.onFatal?.(T))},G=T=>{v=Date.now();let q=typeof T=="string"?T:new TextDecoder().decode(T),C;try{C=JSON.parse(q)}catch{return}if(C.type!=="pong"){if(C.type==="event"){let D=C.event.seq;if(D<=f)return;if(D!==f+1){O(),M.reconnect(4e3,"gap");return}f=D}else if(C.type==="ready")m=!0,k("open");else if((C.type==="ack"||C.type==="error")&&C.id!==void 0&&d.has(C.id)){let D=d.get(C.id);d.delete(C.id),C.type==="ack"?D.resolve(C.result):D.reject(new N(Ht[C.error.code]??0,C.error.code,C.error.message));return}t.onFrame(C)}};M.addEventListener("open",()=>{v=Date.now()}),M.addEventListener("message",T=>G(T.data)),M.addEventListener("close",O);let Q=setInterval(()=>{$||M.readyState!==1||(Date.now()-v>l?(O(),M.reconnect(4001,"silent")):M.send('{"type":"ping"}'))},i);return{get lastSeq(){return f},get state(){return p},get retries(){return Math.max(0,M.retryCount)},send(T){if(M.readyState!==1||p!=="open")return Promise.reject(new N(0,"disconnected","the socket is not open"));let q=`c${++w}`,C=T.type==="message"&&!T.idempotencyKey?{...T,idempotencyKey:Ne()}:T;return new Promise((D,_e)=>{d.set(q,{resolve:D,reject:_e}),M.send(JSON.stringify({...C,id:q}))})},close(){$||($=!0,clearInterval(Q),_(),M.close(1e3,"client closed"),k("closed"))}}}var Hn=500,ve=class{baseUrl;#t;#r;#n;constructor(e){this.baseUrl=e.baseUrl.replace(/\/+$/,""),this.#t=e.token;let t=e.fetch??globalThis.fetch;this.#r=(o,r)=>t(o,r),this.#n=e.WebSocket}createSession(e={}){return this.#e("POST","/v1/sessions",e)}listSessions(e={}){return this.#e("GET",`/v1/sessions${ue(e)}`)}async listChildren(e){let t=[];for(let o;;){let r=await this.listSessions({limit:100,...o?{before:o}:{}});if(t.push(...r.sessions.filter(i=>i.parentId===e)),!r.next)return t;o=r.next}}getSession(e){return this.#e("GET",I(e))}patchSession(e,t){return this.#e("PATCH",I(e),t)}sendMessage(e,t,o=Ne()){return this.#e("POST",`${I(e)}/messages`,{text:t,idempotencyKey:o})}stop(e){return this.#e("POST",`${I(e)}/stop`)}decideApproval(e,t,o,r={}){return this.#e("POST",`${I(e)}/approvals/${encodeURIComponent(t)}`,{decision:o,...r})}dismissRecoveryNotice(e,t){return this.#e("POST",`${I(e)}/recovery-notice/dismiss`,{atSeq:t})}events(e,t=0,o=500){return this.#e("GET",`${I(e)}/events${ue({after:t,limit:o})}`)}async*history(e,t=0,o=Hn){let r=t;for(;;){let i=o-r%o,l=await this.events(e,r,i);if(l.events.length>0&&(yield l.events,r=l.events.at(-1).seq),l.events.length<i)return}}transcript(e,t={}){return this.#e("GET",`${I(e)}/transcript${ue(t)}`)}trace(e,t){return this.#e("GET",`${I(e)}/trace${ue({turnId:t})}`)}context(e){return this.#e("GET",`${I(e)}/context`)}verify(e){return this.#e("GET",`${I(e)}/verify`)}async exportNdjson(e){return(await this.#s("GET",`${I(e)}/export`)).text()}files(e,t={}){return this.#e("GET",`${I(e)}/files${ue(t)}`)}providers(){return this.#e("GET","/v1/providers")}async file(e,t){let o=t.split("/").map(encodeURIComponent).join("/");return(await this.#s("GET",`${I(e)}/files/${o}`)).text()}async archive(e,t,o={}){return(await this.#s("GET",`${I(e)}/archive/${t}${ue(o)}`)).text()}inbox(e,t){return this.#e("POST",`${I(e)}/inbox`,t)}fork(e,t){return this.#e("POST",`${I(e)}/fork`,{throughSeq:t})}createTrigger(e,t){return this.#e("POST",`${I(e)}/triggers`,t)}triggers(e){return this.#e("GET",`${I(e)}/triggers`)}async deleteTrigger(e,t){await this.#s("DELETE",`${I(e)}/triggers/${encodeURIComponent(t)}`)}runs(e){return this.#e("GET",`${I(e)}/runs`)}resume(e,t,o){return this.#e("POST",`${I(e)}/runs/${encodeURIComponent(t)}/resume`,o)}records(e){return this.#e("GET",`${I(e)}/records`)}record(e,t){return this.#e("GET",`${I(e)}/records/${encodeURIComponent(t)}`)}putRecord(e,t,o){return this.#e("PUT",`${I(e)}/records/${encodeURIComponent(t)}`,o)}appendRecordEntry(e,t,o){return this.#e("POST",`${I(e)}/records/${encodeURIComponent(t)}/entries`,o)}createTicket(e){return this.#e("POST",`${I(e)}/tickets`)}async#e(e,t,o){return await(await this.#s(e,t,o)).json()}async#s(e,t,o){let r={};this.#t&&(r.authorization=`Bearer ${this.#t}`),o!==void 0&&(r["content-type"]="application/json");let i;try{i=await this.#r(`${this.baseUrl}${t}`,{method:e,headers:r,...o===void 0?{}:{body:JSON.stringify(o)}})}catch(f){throw new N(0,"network_error",`${e} ${t}: ${String(f)}`,{cause:f})}if(i.ok)return i;let l=await i.text().catch(()=>""),g=`http_${i.status}`,u=l.slice(0,500)||i.statusText;try{let f=JSON.parse(l);typeof f.error?.code=="string"&&(g=f.error.code),typeof f.error?.message=="string"&&(u=f.error.message)}catch{}throw new N(i.status,g,u)}connect(e,t){return Wt({baseUrl:this.baseUrl,token:this.#t,WebSocket:this.#n,createTicket:o=>this.createTicket(o),history:(o,r)=>this.history(o,r)},e,t)}};function I(n){return`/v1/sessions/${encodeURIComponent(n)}`}function ue(n){let e=new URLSearchParams;for(let[o,r]of Object.entries(n))r!==void 0&&e.set(o,String(r));let t=e.toString();return t?`?${t}`:""}function Oe(n){if(n===null||typeof n!="object"){let r=JSON.stringify(n);return r===void 0?"null":r}if(Array.isArray(n))return`[${n.map(Oe).join(",")}]`;let e=n,t=Object.keys(e).filter(r=>e[r]!==void 0).sort(),o="{";for(let r=0;r<t.length;r++){let i=t[r];r>0&&(o+=","),o+=`${JSON.stringify(i)}:${Oe(e[i])}`}return`${o}}`}var ks=64*1024;var Wn=new Uint32Array([1116352408,1899447441,3049323471,3921009573,961987163,1508970993,2453635748,2870763221,3624381080,310598401,607225278,1426881987,1925078388,2162078206,2614888103,3248222580,3835390401,4022224774,264347078,604807628,770255983,1249150122,1555081692,1996064986,2554220882,2821834349,2952996808,3210313671,3336571891,3584528711,113926993,338241895,666307205,773529912,1294757372,1396182291,1695183700,1986661051,2177026350,2456956037,2730485921,2820302411,3259730800,3345764771,3516065817,3600352804,4094571909,275423344,430227734,506948616,659060556,883997877,958139571,1322822218,1537002063,1747873779,1955562222,2024104815,2227730452,2361852424,2428436474,2756734187,3204031479,3329325298]),U=(n,e)=>n>>>e|n<<32-e;function Ft(n){let e=new TextEncoder().encode(n),t=e.length*8,o=new Uint8Array(e.length+9+63>>6<<6>>>0);o.set(e),o[e.length]=128;let r=new DataView(o.buffer);r.setUint32(o.length-8,Math.floor(t/4294967296)),r.setUint32(o.length-4,t>>>0);let i=new Uint32Array([1779033703,3144134277,1013904242,2773480762,1359893119,2600822924,528734635,1541459225]),l=new Uint32Array(64);for(let g=0;g<o.length;g+=64){for(let d=0;d<16;d++)l[d]=r.getUint32(g+d*4);for(let d=16;d<64;d++){let k=l[d-15],_=l[d-2],O=U(k,7)^U(k,18)^k>>>3,H=U(_,17)^U(_,19)^_>>>10;l[d]=l[d-16]+O+l[d-7]+H>>>0}let[u,f,p,m,$,v,w,E]=i;for(let d=0;d<64;d++){let k=U($,6)^U($,11)^U($,25),_=$&v^~$&w,O=E+k+_+Wn[d]+l[d]>>>0,H=U(u,2)^U(u,13)^U(u,22),x=u&f^u&p^f&p,b=H+x>>>0;E=w,w=v,v=$,$=m+O>>>0,m=p,p=f,f=u,u=O+b>>>0}i[0]=i[0]+u>>>0,i[1]=i[1]+f>>>0,i[2]=i[2]+p>>>0,i[3]=i[3]+m>>>0,i[4]=i[4]+$>>>0,i[5]=i[5]+v>>>0,i[6]=i[6]+w>>>0,i[7]=i[7]+E>>>0}return Array.from(i,g=>g.toString(16).padStart(8,"0")).join("")}function Ut(n,e=Ft){let t=n?.$blob;return t&&typeof t.sha256=="string"?t.sha256:e(Oe(n??null))}function jt(n){let e=n.actions??{};if(e.turnClose)return"turnClose";if(e.modelRequest)return"modelRequest";if(e.toolDispatch)return"toolDispatch";if(e.permissionRequest)return"permissionRequest";if(e.permissionDecision&&!n.content)return"permissionDecision";if(e.stateDelta&&!n.content){let t=Object.keys(e.stateDelta);return t.length===1?`state:${t[0]}`:"state"}return n.content?.type??"runtime"}var De=class{items=[];spans=[];marks=[];lastSeq=0;#t=new Map;#r=new Map;#n=new Map;#e=null;add(e){if(e.seq<=this.lastSeq)return!1;this.lastSeq=e.seq;let t=Date.parse(e.at),o=e.content,r=e.actions??{},i=r.stateDelta??{},l=p=>this.items.push({...p,rev:0,at:e.at});if(o?.type==="text"&&(e.author==="user"||e.author==="model"))l({kind:"message",seq:e.seq,role:e.author==="user"?"user":"assistant",text:o.text,...e.source?{source:e.source}:{},...e.turnId?{turnId:e.turnId}:{}}),e.author==="user"&&e.turnId&&!this.#e&&(this.#e={kind:"turn",key:`turn:${e.turnId}`,label:o.text.slice(0,80),start:t,seq:e.seq},this.spans.push(this.#e));else if(o?.type==="thinking")l({kind:"thinking",seq:e.seq,text:o.text});else if(o?.type==="functionCall"){let p={kind:"tool",seq:e.seq,callId:o.callId,tool:o.name,args:o.args,state:"pending",rev:0,at:e.at};this.#t.set(o.callId,p),this.#r.set(o.callId,o.name),this.items.push(p)}else o?.type==="error"&&(l({kind:"error",seq:e.seq,code:o.code,message:o.message}),this.marks.push({kind:"error",at:t,label:`${o.code}: ${o.message}`,seq:e.seq}));if(r.permissionRequest){let p=this.#t.get(r.permissionRequest.callId);p&&this.#s(p,{state:"waiting_approval",requestId:r.permissionRequest.requestId}),this.#o({kind:"approval",key:`approval:${r.permissionRequest.requestId}`,label:`approval: ${r.permissionRequest.tool}`,start:t,seq:e.seq})}if(r.permissionDecision){let p=r.permissionDecision.requestId;if(r.permissionDecision.decision==="approve")for(let m of this.#t.values())m.requestId===p&&m.state==="waiting_approval"&&this.#s(m,{state:"pending"});this.#i(`approval:${p}`,t,r.permissionDecision.decision)}if(r.toolDispatch){let p=this.#t.get(r.toolDispatch.callId);p&&p.state!=="ok"&&this.#s(p,{state:"running",startedAt:t}),this.#o({kind:"tool",key:`tool:${r.toolDispatch.callId}`,label:r.toolDispatch.tool,start:t,seq:e.seq})}if(o?.type==="functionResponse"){let p=this.#t.get(o.callId);p&&this.#s(p,{state:o.status,response:o.response,endedAt:t,...r.toolRecovery?{recovery:r.toolRecovery.strategy}:{}}),this.#i(`tool:${o.callId}`,t,o.status)}if(r.modelRequest&&e.invocationId){let p=r.modelRequest.purpose,m=`model:${e.invocationId}`;this.#n.has(m)||this.#o({kind:"model",key:m,label:p==="compaction"?"compaction call":`model call (~${r.modelRequest.estimatedTokens} tokens)`,start:t,seq:e.seq}),this.#n.has(`attempt:${e.invocationId}`)||this.#o({kind:"attempt",key:`attempt:${e.invocationId}`,label:"attempt 1",start:t,seq:e.seq})}let g=i.modelAttempt;if(g){this.#i(`attempt:${g.invocationId}`,t,g.code);let p=Date.parse(g.retryAt);this.#o({kind:"attempt",key:`attempt:${g.invocationId}`,label:`attempt ${g.attempt+1}`,start:Number.isFinite(p)?Math.max(t,p):t,seq:e.seq}),g.code==="restart"&&this.marks.push({kind:"restart",at:t,label:"restart: call re-issued",seq:e.seq})}if(r.tokenUsage&&e.invocationId&&(this.#i(`attempt:${e.invocationId}`,t,"ok"),this.#i(`model:${e.invocationId}`,t,String(i.finishReason??"answered"))),i.checkpoint){let p=i.checkpoint;this.marks.push({kind:"compaction",at:t,label:`checkpoint through seq ${p.throughSeq??"?"}`,seq:e.seq})}let u=i.recoveryNotice;if(u&&(l({kind:"recovery",seq:e.seq,rerun:u.rerun,needsReview:u.needsReview}),this.marks.push({kind:"recovery",at:t,label:`recovery: ${u.rerun.length} re-run, ${u.needsReview.length} need review`,seq:e.seq})),i.runStarted?.cause==="recovery"&&this.marks.push({kind:"restart",at:t,label:"run taken over after a restart",seq:e.seq}),r.turnClose){l({kind:"turn",seq:e.seq,turnId:e.turnId,reason:r.turnClose.reason});for(let p of this.#n.values())p.end===void 0&&(p.end=t);this.#n.clear(),this.#e&&(this.#e.end=t,this.#e.outcome=r.turnClose.reason,this.#e=null)}return!0}toolOf(e){return this.#r.get(e)}#s(e,t){Object.assign(e,t),e.rev++}#o(e){this.spans.push(e),this.#n.set(e.key,e)}#i(e,t,o){let r=this.#n.get(e);r&&(r.end=Math.max(r.start,t),r.outcome=o,this.#n.delete(e))}};function Vt(n,e){let t=`${e.invocationId}:${e.kind}`,o=n.get(t),r=e.attempt??1;if(!(o&&r<o.attempt))if(e.replace||!o||r>o.attempt){for(let[i,l]of n)l.invocationId===e.invocationId&&l.attempt<r&&n.delete(i);n.set(t,{invocationId:e.invocationId,attempt:r,kind:e.kind,text:e.text})}else o.text+=e.text}function V(n){return n<1e3?`${Math.round(n)} ms`:n<6e4?`${(n/1e3).toFixed(1)} s`:n<36e5?`${Math.floor(n/6e4)} min ${String(Math.round(n%6e4/1e3)).padStart(2,"0")} s`:`${Math.floor(n/36e5)} h ${Math.round(n%36e5/6e4)} min`}function He(n){return n<1024?`${n} B`:n<1024*1024?`${(n/1024).toFixed(1)} KiB`:`${(n/1024/1024).toFixed(1)} MiB`}var Ze=[{kind:"turn",label:"Turns"},{kind:"model",label:"Model calls"},{kind:"attempt",label:"Attempts"},{kind:"tool",label:"Tool calls"},{kind:"approval",label:"Approvals"},{kind:"marks",label:"Events"}],J=30,et=96,ie=22;function Fn(n,e){let t=[.01,.02,.05,.1,.2,.5,1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200,21600,43200,86400].map(o=>o*1e3);return t.find(o=>n/o<=e)??t.at(-1)}function Un(n,e){let t=l=>n.filter(g=>g.kind===l),o=l=>{let g=l.map(p=>[p.start,p.end??e]).sort((p,m)=>p[0]-m[0]),u=0,f=null;for(let[p,m]of g)!f||p>f[1]?(f&&(u+=f[1]-f[0]),f=[p,m]):f[1]=Math.max(f[1],m);return f&&(u+=f[1]-f[0]),u},i=t("attempt").filter(l=>l.outcome&&l.outcome!=="ok").length;return[{kind:"turn",label:"Turns open",ms:o(t("turn")),count:t("turn").length},{kind:"model",label:"Model calls",ms:o(t("model")),count:t("model").length,...i?{extra:`${i} failed attempt${i===1?"":"s"} retried`}:{}},{kind:"tool",label:"Tool calls",ms:o(t("tool")),count:t("tool").length},{kind:"approval",label:"Waiting for approval",ms:o(t("approval")),count:t("approval").length}]}function Bt(n,e,t,o){if(n.length===0&&e.length===0)return c`<p class="muted empty">Nothing has happened yet: send a message and the timeline fills in.</p>`;let r=Math.min(...n.map(d=>d.start),...e.map(d=>d.at)),i=Math.max(r+10,...n.map(d=>d.end??t),...e.map(d=>d.at)),l=Math.max(120,o-et-12),g=d=>et+(d-r)/(i-r)*l,u=ie+Ze.length*J+4,f=Fn(i-r,Math.max(2,Math.floor(l/90))),p=[];for(let d=0;d<=i-r;d+=f)p.push(d);let m=d=>ie+Ze.findIndex(k=>k.kind===d)*J,$=d=>{let k=m(d.kind)+6,_=g(d.start),O=Math.max(2,g(d.end??t)-_),H=(d.end??t)-d.start,x=d.end===void 0?"open":d.outcome??"";return $e`<rect class="bar ${d.kind}" data-outcome=${x} x=${_.toFixed(1)} y=${k} width=${O.toFixed(1)} height=${J-12} rx="2"><title>${d.label} — ${V(H)}${d.end===void 0?" so far":""}${d.outcome?` (${d.outcome})`:""} · seq ${d.seq}</title></rect>`},v=d=>{let k=g(d.at),_=m("marks")+J/2;return $e`<g class="mark ${d.kind}"><path d="M${k.toFixed(1)} ${_-7} l6 7 l-6 7 l-6 -7 z"></path><title>${d.label} · seq ${d.seq}</title></g>`},w=Un(n,t),E=i-r;return c`
    <figure class="timeline">
      <svg width=${o} height=${u} role="img" aria-label=${`Timeline over ${V(E)}: ${w.filter(d=>d.count).map(d=>`${d.label.toLowerCase()} ${V(d.ms)}`).join(", ")}`}>
        ${p.map(d=>$e`<line class="tick" x1=${g(r+d)} x2=${g(r+d)} y1=${ie-4} y2=${u}></line>
            <text class="tick-label" x=${g(r+d)+3} y=${ie-8}>+${V(d)}</text>`)}
        ${Ze.map((d,k)=>$e`<text class="lane-label" x="4" y=${ie+k*J+J/2+4}>${d.label}</text>
            <line class="lane" x1=${et} x2=${o} y1=${ie+(k+1)*J} y2=${ie+(k+1)*J}></line>`)}
        ${n.map($)} ${e.map(v)}
      </svg>
      <figcaption>
        <strong>Where the time went</strong> (${V(E)} from first to last event)
        <ul class="totals">
          ${w.map(d=>c`<li data-kind=${d.kind}>
              <span class="swatch ${d.kind}"></span>${d.label}: <strong>${V(d.ms)}</strong>
              <span class="muted">(${d.count}${d.extra?`; ${d.extra}`:""})</span>
            </li>`)}
          <li><span class="swatch marks"></span>Compactions, recoveries, restarts, errors: ${e.length}</li>
        </ul>
      </figcaption>
    </figure>
  `}var jn=5e3,Gt=400,tt=100,Vn=400,B=[{id:"transcript",label:"Transcript"},{id:"context",label:"Context"},{id:"log",label:"Log"},{id:"files",label:"Files"},{id:"runs",label:"Runs"},{id:"timeline",label:"Timeline"}];function Bn(n,e){return n.kind==="budget"?`Paused at the step budget: ${n.modelCalls??"?"} of ${e??"?"} model calls used this turn.`:n.kind==="child"?"Waiting for a sub-session to finish.":`Waiting${n.reason?`: ${n.reason}`:" for a resume"}.`}function Yt(n){let{client:e,id:t,root:o,handleAuth:r,errorText:i}=n,l=new De,g=new Map,u=new Map,f=new Map,p=null,m=null,$="connecting",v=null,w="",E=0,d=!1,k=!1,_=at(),O=!1,H=n.draft??"",x=null,b="",M=-1,W=null,G=null,Q="",T="idle",q=null,C,D="",_e=-1,F=null,ae=null,xe="",it=-1;function at(){let s=location.hash.slice(1);return B.some(a=>a.id===s)?s:"transcript"}let lt=()=>{_=at(),Be(),A()},ke=()=>A();window.addEventListener("hashchange",lt),window.addEventListener("online",ke),window.addEventListener("offline",ke);function A(){!E&&!d&&(E=requestAnimationFrame(ln))}async function Ve(s,a){try{let h=s();if(h)return await h}catch(h){if(!(h instanceof N&&h.code==="disconnected"))throw h}return a()}async function Xt(s){let a=s.querySelector("textarea"),h=a.value;if(!h.trim())return;let S=n.randomKey();O=!0,w="",A();try{await Ve(()=>m?.send({type:"message",text:h,idempotencyKey:S}),()=>e.sendMessage(t,h,S)),a.value===h&&(a.value=""),H=""}catch(P){r(P)||(w=`Not sent: ${i(P)}`)}finally{O=!1,A(),a.focus()}}async function Zt(){try{le(await Ve(()=>m?.send({type:"stop"}),()=>e.stop(t)))}catch(s){r(s)||(w=`Stop failed: ${i(s)}`),A()}}async function en(s){let a=o.querySelector("#message"),h=a?.value.trim()??"";try{await e.resume(t,s.runId,{waitId:s.waitId,...h?{text:h}:{}}),a&&(a.value="")}catch(S){r(S)||(w=`Resume failed: ${i(S)}`),A()}}async function ct(s,a,h){try{le(await Ve(()=>m?.send({type:"approval",requestId:s,decision:a,argsDigest:h}),()=>e.decideApproval(t,s,a,{argsDigest:h})))}catch(S){if(r(S))return;w=S instanceof N&&S.status===409?`Not decided: ${S.message}. Reload to review the call again.`:`Decision failed: ${i(S)}`,A()}}async function tn(s){try{le(await e.dismissRecoveryNotice(t,s))}catch(a){if(r(a))return;a instanceof N&&a.status===409?le(await e.getSession(t)):w=`Dismiss failed: ${i(a)}`,A()}}async function nn(s){s.preventDefault();try{let a=URL.createObjectURL(new Blob([await e.exportNdjson(t)],{type:"application/x-ndjson"})),h=document.createElement("a");h.href=a,h.download=`highwater-${t.slice(0,12)}.ndjson`,h.click(),setTimeout(()=>URL.revokeObjectURL(a),1e4)}catch(a){r(a)||(w=`Export failed: ${i(a)}`),A()}}async function sn(){T="running",A();try{T=await e.verify(t)}catch(s){T=`verify failed: ${i(s)}`}A()}function Be(){_==="context"&&ut(),_==="log"&&!W&&Se(null),_==="files"&&Te(),_==="runs"&&dt()}async function dt(){let s=p?.highWater??0;if(it!==s){it=s;try{let[a,h]=await Promise.all([e.runs(t),e.triggers(t)]);ae={runs:a.runs,triggers:h.triggers},xe=""}catch(a){r(a)||(xe=i(a))}A()}}async function ut(){let s=p?.highWater??0;if(M!==s){M=s;try{x=await e.context(t),b=""}catch(a){r(a)||(b=i(a))}A()}}async function Se(s){try{let a=s??Math.max(0,(p?.highWater??0)-tt);W=await e.events(t,a,tt),G=a,Q=""}catch(a){r(a)||(Q=i(a))}A()}async function Te(s=!1){let a=p?.highWater??0;if(!(!s&&_e===a)){_e=a;try{let h=await e.files(t,s&&C?{after:C}:{});q=s&&q?[...q,...h.files]:h.files,C=h.next,D=""}catch(h){r(h)||(D=i(h))}A()}}async function rn(s){F={path:s,content:null},A();try{F={path:s,content:await e.file(t,s)}}catch(a){r(a)||(F={path:s,content:null,error:i(a)})}A()}function le(s){p=s,document.title=`${s.title||"Untitled session"} — highwater`,A()}function on(s){if(s.type==="ready"||s.type==="session")s.type==="ready"&&g.clear(),le(s.session);else if(s.type==="event"){let a=s.event;l.add(a),a.invocationId&&(a.content?.type==="text"||a.content?.type==="thinking")&&g.delete(`${a.invocationId}:${a.content.type}`),a.actions?.turnClose&&(g.clear(),_==="context"&&ut(),_==="files"&&Te(),_==="runs"&&dt()),a.content?.type==="functionResponse"&&_==="files"&&Te(),A()}else s.type==="delta"?(an(s),A()):s.type==="error"&&(w=`${s.error.code}: ${s.error.message}`,A())}function an(s){Vt(g,s)}function ln(){if(E=0,d)return;let s=window.innerHeight+window.scrollY>=document.body.scrollHeight-120,a=performance.now();re(dn(),o),window.__hwDraws?.push(performance.now()-a),s&&_==="transcript"&&cn()&&window.scrollTo({top:document.body.scrollHeight})}let pt=0;function cn(){let s=l.lastSeq!==pt;return pt=l.lastSeq,s||g.size>0}function dn(){if(v)return c`<a href="/" data-nav class="back">← Sessions</a>
        <p class="error" role="alert">${v}</p>`;let s=p,a=Math.max(s?.highWater??0,l.lastSeq);return c`
      <a href="/" data-nav class="back">← Sessions</a>
      <header class="session-head">
        <h1>${s?s.title||"Untitled session":"Session"}</h1>
        <div class="meta">
          ${s?st(s.status):y} ${s?rt(s):y}
          <span class="muted count" aria-live="off">${a} events</span>
          ${Gn(s)}
          ${hn()}
        </div>
      </header>
      ${mn()}
      <p class="error" role="alert">${w}</p>
      <div class="tabs" role="tablist" aria-label="Session views" @keydown=${pn}>
        ${B.map(h=>c`<button
            type="button"
            role="tab"
            id=${`tab-${h.id}`}
            aria-controls=${`panel-${h.id}`}
            aria-selected=${h.id===_?"true":"false"}
            tabindex=${h.id===_?"0":"-1"}
            @click=${()=>ht(h.id)}
          >${h.label}</button>`)}
      </div>
      <section class="panel" role="tabpanel" id=${`panel-${_}`} aria-labelledby=${`tab-${_}`}>
        ${_==="transcript"?gn():y} ${_==="context"?wn():y}
        ${_==="log"?xn():y} ${_==="files"?Sn():y}
        ${_==="runs"?kn():y}
        ${_==="timeline"?Bt(l.spans,l.marks,Date.now(),un()):y}
      </section>
      ${fn()}
    `}function un(){let s=o.querySelector(".panel");return Math.max(280,Math.min((s?.clientWidth??o.clientWidth)-2||800,1200))}function ht(s){s!==_&&(history.replaceState(null,"",s==="transcript"?location.pathname:`#${s}`),_=s,Be(),A())}function pn(s){let a=B.findIndex(S=>S.id===_),h=s.key==="ArrowRight"?(a+1)%B.length:s.key==="ArrowLeft"?(a+B.length-1)%B.length:s.key==="Home"?0:s.key==="End"?B.length-1:-1;h<0||(s.preventDefault(),ht(B[h].id),requestAnimationFrame(()=>o.querySelector(`#tab-${B[h].id}`)?.focus()))}function hn(){let s=$!=="open"&&(!navigator.onLine||(m?.retries??0)>=3),a=$==="open"?"live":s?"offline":$==="reconnecting"?"reconnecting":"connecting";return c`<span class="conn" role="status" data-state=${a}>${a==="live"?"● live":a==="offline"?"○ offline — retrying":a==="reconnecting"?"◌ reconnecting…":"◌ connecting…"}</span>`}function mn(){let s=p?.recoveryNotice;if(!s)return y;let a=h=>c`<li><code>${l.toolOf(h)??"call"}</code> ${h}</li>`;return c`<section class="banner" aria-label="Recovery notice">
      <strong>This session recovered after a restart (event ${s.atSeq}).</strong>
      ${s.rerun.length?c`<p>Re-run (safe to repeat):</p><ul>${s.rerun.map(a)}</ul>`:y}
      ${s.needsReview.length?c`<p>Needs review (the side effect may or may not have happened):</p><ul>${s.needsReview.map(a)}</ul>`:y}
      ${s.reissued?.length?c`<p>${s.reissued.length} model call(s) were issued again.</p>`:y}
      <button type="button" class="dismiss" @click=${()=>{tn(s.atSeq)}}>Dismiss</button>
    </section>`}function fn(){let s=p,a=s?.wait??null;return c`<form
      class="composer"
      @submit=${h=>{h.preventDefault(),Xt(h.currentTarget)}}
    >
      <label for="message" class="sr-only">Message</label>
      <textarea
        id="message"
        rows="3"
        .value=${H}
        @input=${h=>{H=h.target.value}}
        placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
        @keydown=${h=>{h.key==="Enter"&&!h.shiftKey&&!h.isComposing&&(h.preventDefault(),h.currentTarget.form.requestSubmit())}}
      ></textarea>
      <div class="composer-actions">
        <button type="submit" ?disabled=${O}>Send</button>
        <button type="button" class="danger" ?disabled=${!s?.openTurn} @click=${()=>{Zt()}}>Stop</button>
        ${a&&a.kind!=="child"?c`<button type="button" @click=${()=>{en(a)}}>Resume</button>`:y}
      </div>
      ${a?c`<p class="wait-note muted" role="status">
              ${Bn(a,s?.maxModelCallsPerTurn)}
            </p>`:y}
    </form>`}function gn(){let s=new Map(p?.pendingApprovals.map(R=>[R.requestId,R])),a=l.items,h=k||a.length<=Gt?a:a.slice(-Gt),S=a.length-h.length,P=[...g.values()];return c`
      ${S>0?c`<button type="button" class="link earlier" @click=${()=>{k=!0,A()}}>Show ${S} earlier items</button>`:y}
      ${a.length===0&&P.length===0?c`<p class="muted empty">No messages yet. Write one below; the agent answers here as it works.</p>`:y}
      <ol class="transcript" aria-label="Transcript" aria-busy=${P.length>0?"true":"false"}>
        ${ye(h,R=>`${R.kind}:${R.seq}`,R=>$n(R,s))}
      </ol>
      <div class="streaming" aria-hidden="true">
        ${P.map(R=>R.kind==="text"?c`<div class="item msg assistant streaming">
                <div class="who">Assistant${R.attempt>1?c` <span class="muted">(attempt ${R.attempt})</span>`:y}</div>
                <div class="text">${R.text}</div>
              </div>`:c`<details class="item thinking streaming"><summary>Thinking…</summary><pre>${R.text}</pre></details>`)}
      </div>
    `}function $n(s,a){let h=`${s.kind}:${s.seq}`,S=s.kind==="tool"&&s.requestId?a.get(s.requestId):void 0,P=S!==void 0,R=u.get(h),L=s.kind==="tool"&&s.startedAt!==void 0&&s.endedAt===void 0;if(R&&R.rev===s.rev&&!P&&!R.actionable&&!L)return R.tpl;let z=yn(s,S);return u.set(h,{rev:s.rev,actionable:P,tpl:z}),z}function yn(s,a){switch(s.kind){case"message":return c`<li class="item msg ${s.role}" data-seq=${s.seq}>
          <div class="who">
            ${s.role==="user"?"You":"Assistant"}
            ${s.source&&!["http","ws"].includes(s.source)?c`<span class="muted"> via ${s.source}</span>`:y}
          </div>
          <div class="text">${s.text}</div>
        </li>`;case"thinking":return c`<li class="item thinking" data-seq=${s.seq}>
          <details><summary>Thinking (${s.text.length} chars)</summary><pre>${s.text}</pre></details>
        </li>`;case"tool":return vn(s,a);case"error":return c`<li class="item error" role="note" data-seq=${s.seq}>
          <strong>Error (${s.code}): </strong>${s.message}
        </li>`;case"recovery":return c`<li class="item recovery" data-seq=${s.seq}>
          Recovered after a restart: ${s.rerun.length} call(s) re-run, ${s.needsReview.length} need review.
        </li>`;case"turn":return c`<li class="item turn" data-seq=${s.seq} data-reason=${s.reason}>turn ${s.reason}</li>`;case"record":return c`<li class="item record" data-seq=${s.seq}>
          Work record <code>${s.topic}</code>:
          ${s.revision!==void 0?`revision ${s.revision}`:`entry ${s.entry}`}
        </li>`;case"fork":return c`<li class="item fork" data-seq=${s.seq}>
          Forked from <a href="/s/${s.sessionId}" data-nav>${s.sessionId.slice(0,12)}…</a> at seq ${s.throughSeq}
        </li>`}}function vn(s,a){let h=s.startedAt!==void 0?V((s.endedAt??Date.now())-s.startedAt):void 0,S=nt(s.args),P=c`<code class="tool-name">${s.tool}</code>
      <span class="badge" data-state=${s.state}>${s.state.replace("_"," ")}</span>
      ${h?c`<span class="muted duration">${h}${s.endedAt===void 0?"…":""}</span>`:y}
      ${s.recovery?c`<span class="badge recovery">${s.recovery==="rerun"?"re-run after restart":"needs review"}</span>`:y}`;if(a){let R=new TextEncoder().encode(JSON.stringify(s.args)??"").length,L=bn(a.requestId,s.args),z=L!==a.argsDigest,mt=L;return c`<li class="item tool approval-card" data-seq=${s.seq} data-state=${s.state}>
        <div class="tool-head">${P}</div>
        <div class="block">
          <span class="label">Arguments, ${He(R)} · digest <code>${a.argsDigest.slice(0,12)}…</code></span>
          <pre class="args" tabindex="0" aria-label="Arguments of ${s.tool}">${S}</pre>
        </div>
        ${z?c`<p class="error" role="alert">
              These arguments do not match the digest of the pending call: reload before deciding.
            </p>`:y}
        <div class="approval" role="group" aria-label=${`Approval for ${s.tool}`}>
          <span>This call needs your approval.</span>
          <button type="button" ?disabled=${z||L==="pending"} @click=${()=>{ct(a.requestId,"approve",mt)}}>Approve</button>
          <button type="button" class="danger" ?disabled=${L==="pending"} @click=${()=>{ct(a.requestId,"reject",mt)}}>
            Reject
          </button>
        </div>
      </li>`}return c`<li class="item tool" data-seq=${s.seq} data-state=${s.state}>
      <details>
        <summary class="tool-head">${P}</summary>
        ${Kt("Arguments",S)} ${s.response!==void 0?Kt("Response",nt(s.response)):y}
      </details>
    </li>`}function bn(s,a){let h=f.get(s);if(h!==void 0)return h;let S=Ut(a);return f.set(s,S),S}function wn(){if(b)return c`<p class="error" role="alert">${b}</p>`;if(!x)return c`<p class="muted">Loading the context…</p>`;let s=x,a=z=>`${(100*z/s.contextWindow).toFixed(1)}%`,h=JSON.stringify(s.messages),S=(h.match(/archive:\/\/[0-9a-f]{64}/g)??[]).length,P=p?.usage,R=P&&P.cachedInputTokens>0&&P.inputTokens>0?P.cachedInputTokens/P.inputTokens:null,L=s.estimatedTokens/s.threshold;return c`
      <div class="context">
        <p>
          <strong>${s.estimatedTokens.toLocaleString()}</strong> tokens estimated for the next model call, of a
          compaction threshold of <strong>${s.threshold.toLocaleString()}</strong>
          (${(L*100).toFixed(0)}%); window ${s.contextWindow.toLocaleString()}, ${s.maxOutputTokens.toLocaleString()}
          reserved for output.
        </p>
        <div
          class="meter"
          role="meter"
          aria-label="Context used"
          aria-valuemin="0"
          aria-valuemax=${s.threshold}
          aria-valuenow=${Math.min(s.estimatedTokens,s.threshold)}
          aria-valuetext=${`${s.estimatedTokens} of ${s.threshold} tokens before compaction`}
        >
          <div class="fill ${L>.9?"hot":""}" style="width:${a(Math.min(s.estimatedTokens,s.contextWindow))}"></div>
          <div class="threshold" style="left:${a(s.threshold)}" title="compaction threshold"></div>
          <div class="reserve" style="left:${a(s.contextWindow-s.maxOutputTokens)}" title="reserved for output"></div>
        </div>
        <div class="meter-legend muted">
          <span><span class="swatch fill"></span>estimate</span>
          <span><span class="swatch threshold"></span>threshold: compaction starts here</span>
          <span><span class="swatch reserve"></span>output reserve</span>
        </div>
        <dl class="facts">
          <dt>Checkpoint waterline</dt>
          <dd>
            ${s.checkpoint?c`events 1–${s.checkpoint.throughSeq} are summarised in checkpoint <code>${s.checkpoint.id}</code>;
                  raw from seq ${s.rawFromSeq}`:c`no checkpoint yet: the whole log from seq ${s.rawFromSeq} is sent raw`}
            ${_n(s.checkpoint?.throughSeq??0,p?.highWater??l.lastSeq)}
          </dd>
          <dt>Offloaded results</dt>
          <dd>${S} tool result${S===1?"":"s"} replaced by an archive placeholder</dd>
          <dt>Prompt-cache hit rate</dt>
          <dd>
            ${R!==null?c`${(R*100).toFixed(1)}% of ${P.inputTokens.toLocaleString()} input tokens were cached`:c`<span class="muted">not reported by this provider</span>`}
          </dd>
          <dt>Messages</dt>
          <dd>${s.messages.length} messages, ${He(new TextEncoder().encode(h).length)}</dd>
        </dl>
        ${s.checkpoint?c`<details><summary>Checkpoint summary</summary><pre>${s.checkpoint.summary}</pre></details>`:y}
        <details><summary>Messages as the next call sends them</summary><pre>${nt(s.messages)}</pre></details>
      </div>
    `}function _n(s,a){let h=a>0?100*s/a:0;return c`<div class="waterline" aria-hidden="true">
      <div class="summarised" style="width:${h.toFixed(1)}%"></div>
      <span class="muted">seq 1</span><span class="muted right">seq ${a}</span>
    </div>`}function xn(){let s=T,a=s==="idle"?y:s==="running"?c`<span class="verify" role="status">verifying…</span>`:typeof s=="string"?c`<span class="verify bad" role="status">${s}</span>`:s.ok?c`<span class="verify ok" role="status">✓ verified ${s.highWater} events, head <code>${s.headDigest.slice(0,12)}…</code></span>`:c`<span class="verify bad" role="status">✗ ${s.problems.length} problem(s): ${s.problems.slice(0,3).join("; ")}</span>`,h=W,S=h?.events[0]?.seq??0,P=h?.events.at(-1)?.seq??0,R=Math.max(h?.highWater??0,p?.highWater??0);return c`
      <div class="toolbar">
        <button type="button" @click=${()=>{sn()}}>Verify</button>
        <a href=${`/v1/sessions/${t}/export`} @click=${nn} download>Export</a>
        ${a}
      </div>
      ${Q?c`<p class="error" role="alert">${Q}</p>`:y}
      ${h?c`<div class="pager">
              <button type="button" ?disabled=${S<=1} @click=${()=>{Se(Math.max(0,(G??0)-tt))}}>Older</button>
              <span class="muted">seq ${S}–${P} of ${R}</span>
              <button type="button" ?disabled=${P>=R} @click=${()=>{Se(P)}}>Newer</button>
              <button type="button" class="link" @click=${()=>{Se(null)}}>Latest</button>
            </div>
            <div class="table-wrap">
              <table class="log">
                <thead><tr><th>seq</th><th>time</th><th>author</th><th>kind</th><th>digest</th></tr></thead>
                <tbody>
                  ${ye(h.events,L=>L.seq,L=>c`<tr data-seq=${L.seq}>
                      <td>${L.seq}</td>
                      <td><time datetime=${L.at}>${new Date(L.at).toLocaleTimeString()}</time></td>
                      <td>${L.author}</td>
                      <td><code>${jt(L)}</code>${L.modelVisibility==="hidden"?c` <span class="muted">hidden</span>`:y}</td>
                      <td><code title=${L.digest}>${L.digest.slice(0,12)}</code></td>
                    </tr>`)}
                </tbody>
              </table>
            </div>`:c`<p class="muted">Loading the log…</p>`}
    `}function kn(){if(xe)return c`<p class="error" role="alert">${xe}</p>`;if(!ae)return c`<p class="muted">Loading runs…</p>`;let s=p?.parentId;return c`
      ${s?c`<p>A sub-session of <a href="/s/${s}" data-nav>${s.slice(0,12)}…</a></p>`:y}
      <h2>Triggers</h2>
      ${ae.triggers.length===0?c`<p class="muted empty">No triggers: scheduled runs appear here once one is created.</p>`:c`<ul class="triggers">
              ${ae.triggers.map(a=>c`<li><code>${a.name}</code> ${JSON.stringify(a.schedule)}
                  ${a.nextAt?c`<span class="muted">next ${new Date(a.nextAt).toLocaleString()}</span>`:y}</li>`)}
            </ul>`}
      <h2>Runs</h2>
      ${ae.runs.length===0?c`<p class="muted empty">No runs yet.</p>`:c`<table class="runs">
              <thead><tr><th>run</th><th>trigger</th><th>state</th><th>outcome</th><th>started</th></tr></thead>
              <tbody>
                ${ae.runs.map(a=>c`<tr>
                    <td><code>${a.runId.slice(0,8)}</code></td>
                    <td>${a.trigger??"—"}</td>
                    <td>${a.state}${a.waitId?c` <span class="muted">(${a.waitId})</span>`:y}</td>
                    <td>${a.outcome??""}</td>
                    <td>${new Date(a.startedAt).toLocaleString()}</td>
                  </tr>`)}
              </tbody>
            </table>`}`}function Sn(){return D?c`<p class="error" role="alert">${D}</p>`:q?q.length===0?c`<p class="muted empty">The workspace is empty: files the agent writes appear here.</p>`:c`
      <div class="files">
        <ul class="file-list" aria-label="Workspace files">
          ${q.map(s=>c`<li>
              <button type="button" class="link" aria-current=${F?.path===s.path?"true":"false"} @click=${()=>{rn(s.path)}}>${s.path}</button>
              <span class="muted">${He(s.bytes)} · ${new Date(s.updatedAt).toLocaleString()}</span>
            </li>`)}
          ${C?c`<li><button type="button" class="link" @click=${()=>{Te(!0)}}>More</button></li>`:y}
        </ul>
        ${F?c`<article class="file" aria-label=${F.path}>
              <h2><code>${F.path}</code></h2>
              ${F.error?c`<p class="error">${F.error}</p>`:F.content===null?c`<p class="muted">Loading…</p>`:c`<pre class="file-content">${F.content}</pre>`}
            </article>`:c`<p class="muted">Open a file to read it.</p>`}
      </div>
    `:c`<p class="muted">Loading the workspace…</p>`}A(),(async()=>{try{let s=await e.getSession(t);if(d)return;le(s),Be(),m=e.connect(t,{after:Math.max(0,s.highWater-jn),onFrame:on,onState:a=>{$=a,A()},onFatal:a=>{r(a)||(w=`Disconnected: ${i(a)}`),A()}})}catch(s){if(r(s))return;v=s instanceof N&&s.status===404?"No such session.":i(s),A()}})();let Tn=setInterval(()=>{(_==="timeline"||$!=="open"||l.items.some(s=>s.kind==="tool"&&s.state==="running"))&&A()},1e3);return()=>{d=!0,m?.close(),m=null,clearInterval(Tn),window.removeEventListener("hashchange",lt),window.removeEventListener("online",ke),window.removeEventListener("offline",ke),E&&cancelAnimationFrame(E),re(y,o)}}function nt(n){return typeof n=="string"?n:JSON.stringify(n,null,2)??String(n)}function Kt(n,e){return e.length>Vn||e.split(`
`).length>12?c`<details class="block"><summary>${n} (${e.length} chars)</summary><pre>${e}</pre></details>`:c`<div class="block"><span class="label">${n}</span><pre>${e}</pre></div>`}function st(n){return c`<span class="pill" data-status=${n}>${n.replace("_"," ")}</span>`}function rt(n){return c`<span class="model"
    >${n.model.name}${n.model.provider==="demo"?c`<span class="demo" title="highwater's built-in offline model: deterministic, no API key">demo model</span>`:y}</span
  >`}function Gn(n){let e=n?.placement;return!e||!e.locationHint&&!e.jurisdiction?y:c`<span class="muted placement">${[e.jurisdiction&&`jurisdiction ${e.jurisdiction}`,e.locationHint&&`near ${e.locationHint}`].filter(Boolean).join(" · ")}</span>`}var Fe="highwater.token",ot="highwater.draft.",Kn=3e3,Yn=["wnam","enam","sam","weur","eeur","apac","oc","afr","me"],Jn=["write_file","edit_file","delete_file","http_fetch"],Qn="Draft the release notes for version two",Ue=document.getElementById("app"),zn=document.getElementById("top-actions"),be=null,pe=()=>{};function Qt(n){history.pushState(null,"",n),we()}document.addEventListener("click",n=>{let e=n.target.closest?.("a[data-nav]");!e||n.defaultPrevented||n.button!==0||n.metaKey||n.ctrlKey||n.shiftKey||(n.preventDefault(),Qt(e.getAttribute("href")))});window.addEventListener("popstate",we);function Xn(){return Array.from(crypto.getRandomValues(new Uint8Array(16)),n=>n.toString(16).padStart(2,"0")).join("")}function je(n){return n instanceof N?`${n.code}: ${n.message}`:String(n)}function We(n){return n instanceof N&&n.status===401?(pe(),pe=()=>{},sessionStorage.removeItem(Fe),be=null,zt("That token was not accepted. Paste a valid API token."),!0):!1}function we(){pe(),pe=()=>{};let n=sessionStorage.getItem(Fe);if(be=n?new ve({baseUrl:location.origin,token:n}):null,re(n?c`<button
          type="button"
          class="link"
          @click=${()=>{sessionStorage.removeItem(Fe),we()}}
        >Forget token</button>`:y,zn),!be)return zt();let e=/^\/s\/([^/]+)\/?$/.exec(location.pathname);if(e){let t=decodeURIComponent(e[1]),o=sessionStorage.getItem(ot+t)??void 0;sessionStorage.removeItem(ot+t),pe=Yt({client:be,id:t,root:Ue,handleAuth:We,errorText:je,randomKey:Xn,...o?{draft:o}:{}})}else pe=es(be)}function zt(n){document.title="highwater";let e=n??"",t=()=>re(c`<form
        class="card"
        @submit=${async o=>{o.preventDefault();let i=o.currentTarget.querySelector("#token").value.trim();try{await new ve({baseUrl:location.origin,token:i}).listSessions({limit:1}),sessionStorage.setItem(Fe,i),we()}catch(l){e=l instanceof N&&l.status===401?"That token was not accepted.":je(l),t()}}}
      >
        <h1>Connect</h1>
        <p>
          Paste an API token: one of the Worker's <code>API_TOKENS</code>. <code>npm start</code> prints one as
          <code>highwater: token …</code>. It stays in this tab only (session storage).
        </p>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" required spellcheck="false" />
        <button type="submit">Connect</button>
        <p class="error" role="alert">${e}</p>
      </form>`,Ue);t(),Ue.querySelector("#token")?.focus()}var Jt=()=>({title:"",system:"",provider:"",name:"",contextWindow:"",approve:new Set,approvePaths:"",locationHint:"",jurisdiction:""});function Zn(n){let e=n.approvePaths.split(",").map(i=>i.trim()).filter(Boolean),t=new Set(["write_file","edit_file","delete_file"]),o=[...n.approve].map(i=>e.length&&t.has(i)?{tool:i,match:{path:e}}:{tool:i}),r={};return n.provider&&(r.provider=n.provider),n.name.trim()&&(r.name=n.name.trim()),n.contextWindow.trim()&&(r.contextWindow=Number(n.contextWindow)),{...n.title.trim()?{title:n.title.trim()}:{},...n.system.trim()?{system:n.system}:{},...Object.keys(r).length?{model:r}:{},...o.length?{approvals:o}:{},...n.locationHint?{locationHint:n.locationHint}:{},...n.jurisdiction?{jurisdiction:n.jurisdiction}:{}}}function es(n){document.title="Sessions — highwater";let e=Jt(),t=null,o="",r=!1,i=null,l,g=!1,u=0,f="",p,m=!1,$=()=>{m||re(_(),Ue)};async function v(){try{t=(await n.providers()).providers;let x=t.find(b=>b.isDefault)??t[0];x&&!e.provider&&(e.provider=x.name)}catch(x){We(x)||(t=[])}$()}async function w(x=!1){try{let b=await n.listSessions(x&&l?{before:l}:{});if(x)i=[...i??[],...b.sessions],l=b.next,g=!0;else{let M=new Set(b.sessions.map(G=>G.id)),W=g?(i??[]).slice(u).filter(G=>!M.has(G.id)):[];i=[...b.sessions,...W],u=b.sessions.length,g||(l=b.next)}f=""}catch(b){We(b)||(f=je(b))}$()}function E(){e={...Jt(),provider:t?.find(x=>x.demo)?.name??e.provider,title:"Demo: release notes",approve:new Set(["write_file"]),approvePaths:"notes/task.md"},p=Qn,$()}async function d(x){x.preventDefault(),r=!0,o="",$();try{let b=await n.createSession(Zn(e));p&&sessionStorage.setItem(ot+b.id,p),Qt(`/s/${b.id}`)}catch(b){We(b)||(o=je(b)),r=!1,$()}}let k=x=>b=>{e={...e,[x]:b.target.value},$()},_=()=>{let x=t?.find(b=>b.name===e.provider);return c`
      <form class="card create" @submit=${d}>
        <div class="form-head">
          <h2>Start a session</h2>
          <button type="button" class="secondary" @click=${E}>Demo preset</button>
        </div>
        <p class="muted">
          The demo preset uses the offline demo model and asks for your approval before it writes
          <code>notes/task.md</code>.
        </p>
        <label for="new-title">Title</label>
        <input id="new-title" maxlength="500" placeholder="e.g. Draft the release notes" .value=${e.title} @input=${k("title")} />
        <label for="new-system">System prompt</label>
        <textarea id="new-system" rows="2" maxlength="65536" placeholder="Optional extra instructions" .value=${e.system} @input=${k("system")}></textarea>
        <fieldset>
          <legend>Model</legend>
          <div class="row">
            <span class="cell">
              <label for="new-provider">Provider</label>
              <select id="new-provider" .value=${e.provider} @change=${k("provider")}>
                ${(t??[]).map(b=>c`<option value=${b.name} ?selected=${b.name===e.provider}>
                    ${b.name}${b.demo?" (offline demo)":""}${b.isDefault?" — default":""}
                  </option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-model">Name</label>
              <input id="new-model" placeholder=${x?.defaultModel??"the provider's default"} .value=${e.name} @input=${k("name")} />
            </span>
            <span class="cell">
              <label for="new-window">Context window</label>
              <input id="new-window" type="number" min="1024" step="1024" placeholder="128000" .value=${e.contextWindow} @input=${k("contextWindow")} />
            </span>
          </div>
        </fieldset>
        <fieldset>
          <legend>Approval rules: ask me before</legend>
          <div class="row checks">
            ${Jn.map(b=>c`<label class="check"><input
                  type="checkbox"
                  .checked=${e.approve.has(b)}
                  @change=${M=>{let W=new Set(e.approve);M.target.checked?W.add(b):W.delete(b),e={...e,approve:W},$()}}
                /><code>${b}</code></label>`)}
          </div>
          <label for="new-paths">Only for these paths (comma-separated; file tools)</label>
          <input id="new-paths" placeholder="every path" .value=${e.approvePaths} @input=${k("approvePaths")} />
        </fieldset>
        <fieldset>
          <legend>Placement</legend>
          <div class="row">
            <span class="cell">
              <label for="new-location">Location hint</label>
              <select id="new-location" .value=${e.locationHint} @change=${k("locationHint")}>
                <option value="">automatic</option>
                ${Yn.map(b=>c`<option value=${b} ?selected=${b===e.locationHint}>${b}</option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-jurisdiction">Jurisdiction</label>
              <select id="new-jurisdiction" .value=${e.jurisdiction} @change=${k("jurisdiction")}>
                <option value="">none</option>
                <option value="eu" ?selected=${e.jurisdiction==="eu"}>eu</option>
                <option value="fedramp" ?selected=${e.jurisdiction==="fedramp"}>fedramp</option>
              </select>
            </span>
          </div>
        </fieldset>
        <button type="submit" ?disabled=${r}>New session</button>
        <p class="error" role="alert">${o}</p>
      </form>
      <h2>Sessions</h2>
      ${O()}
    `},O=()=>f&&!i?c`<p class="error" role="alert">${f}</p>`:i?i.length===0?c`<p class="muted empty">No sessions yet. Start one above: the Demo preset works offline, with no API key.</p>`:c`<ul class="sessions" aria-label="Your sessions">
      ${ye(i,x=>x.id,x=>c`<li data-id=${x.id}>
          <a href=${`/s/${x.id}`} data-nav>${x.title||"Untitled session"}</a>
          ${st(x.status)} ${x.openTurn?c`<span class="badge">turn open</span>`:y}
          ${x.pendingApprovals.length?c`<span class="badge approvals" data-state="waiting_approval">${x.pendingApprovals.length} approval${x.pendingApprovals.length===1?"":"s"} waiting</span>`:y}
          ${rt(x)}
          <span class="muted">${x.highWater} events · updated ${new Date(x.updatedAt).toLocaleString()}</span>
        </li>`)}
      ${l?c`<li><button type="button" class="link" @click=${()=>{w(!0)}}>More</button></li>`:y}
    </ul>
    ${f?c`<p class="error" role="alert">${f}</p>`:y}`:c`<p class="muted">Loading…</p>`;$(),v(),w();let H=setInterval(()=>{document.visibilityState==="visible"&&w()},Kn);return()=>{m=!0,clearInterval(H)}}we();export{Zn as formOptions};

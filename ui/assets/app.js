// Built by scripts/build-ui.mjs from ui/src and src/client. Do not edit.
var Ye=globalThis,gt=n=>n,Ee=Ye.trustedTypes,$t=Ee?Ee.createPolicy("lit-html",{createHTML:n=>n}):void 0,Je="$lit$",j=`lit$${Math.random().toFixed(9).slice(2)}$`,Qe="?"+j,Rn=`<${Qe}>`,ee=document,he=()=>ee.createComment(""),me=n=>n===null||typeof n!="object"&&typeof n!="function",ze=Array.isArray,_t=n=>ze(n)||typeof n?.[Symbol.iterator]=="function",Ke=`[ 	
\f\r]`,pe=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,yt=/-->/g,vt=/>/g,X=RegExp(`>|${Ke}(?:([^\\s"'>=/]+)(${Ke}*=${Ke}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),bt=/'/g,wt=/"/g,kt=/^(?:script|style|textarea|title)$/i,Xe=n=>(e,...t)=>({_$litType$:n,strings:e,values:t}),c=Xe(1),ge=Xe(2),ss=Xe(3),te=Symbol.for("lit-noChange"),y=Symbol.for("lit-nothing"),xt=new WeakMap,Z=ee.createTreeWalker(ee,129);function St(n,e){if(!ze(n)||!n.hasOwnProperty("raw"))throw Error("invalid template strings array");return $t!==void 0?$t.createHTML(e):e}var Tt=(n,e)=>{let t=n.length-1,i=[],r,o=e===2?"<svg>":e===3?"<math>":"",l=pe;for(let g=0;g<t;g++){let p=n[g],f,u,m=-1,$=0;for(;$<p.length&&(l.lastIndex=$,u=l.exec(p),u!==null);)$=l.lastIndex,l===pe?u[1]==="!--"?l=yt:u[1]!==void 0?l=vt:u[2]!==void 0?(kt.test(u[2])&&(r=RegExp("</"+u[2],"g")),l=X):u[3]!==void 0&&(l=X):l===X?u[0]===">"?(l=r??pe,m=-1):u[1]===void 0?m=-2:(m=l.lastIndex-u[2].length,f=u[1],l=u[3]===void 0?X:u[3]==='"'?wt:bt):l===wt||l===bt?l=X:l===yt||l===vt?l=pe:(l=X,r=void 0);let v=l===X&&n[g+1].startsWith("/>")?" ":"";o+=l===pe?p+Rn:m>=0?(i.push(f),p.slice(0,m)+Je+p.slice(m)+j+v):p+j+(m===-2?g:v)}return[St(n,o+(n[t]||"<?>")+(e===2?"</svg>":e===3?"</math>":"")),i]},fe=class n{constructor({strings:e,_$litType$:t},i){let r;this.parts=[];let o=0,l=0,g=e.length-1,p=this.parts,[f,u]=Tt(e,t);if(this.el=n.createElement(f,i),Z.currentNode=this.el.content,t===2||t===3){let m=this.el.content.firstChild;m.replaceWith(...m.childNodes)}for(;(r=Z.nextNode())!==null&&p.length<g;){if(r.nodeType===1){if(r.hasAttributes())for(let m of r.getAttributeNames())if(m.endsWith(Je)){let $=u[l++],v=r.getAttribute(m).split(j),w=/([.?@])?(.*)/.exec($);p.push({type:1,index:o,name:w[2],strings:v,ctor:w[1]==="."?Ie:w[1]==="?"?Ce:w[1]==="@"?qe:se}),r.removeAttribute(m)}else m.startsWith(j)&&(p.push({type:6,index:o}),r.removeAttribute(m));if(kt.test(r.tagName)){let m=r.textContent.split(j),$=m.length-1;if($>0){r.textContent=Ee?Ee.emptyScript:"";for(let v=0;v<$;v++)r.append(m[v],he()),Z.nextNode(),p.push({type:2,index:++o});r.append(m[$],he())}}}else if(r.nodeType===8)if(r.data===Qe)p.push({type:2,index:o});else{let m=-1;for(;(m=r.data.indexOf(j,m+1))!==-1;)p.push({type:7,index:o}),m+=j.length-1}o++}}static createElement(e,t){let i=ee.createElement("template");return i.innerHTML=e,i}};function ne(n,e,t=n,i){if(e===te)return e;let r=i!==void 0?t._$Co?.[i]:t._$Cl,o=me(e)?void 0:e._$litDirective$;return r?.constructor!==o&&(r?._$AO?.(!1),o===void 0?r=void 0:(r=new o(n),r._$AT(n,t,i)),i!==void 0?(t._$Co??=[])[i]=r:t._$Cl=r),r!==void 0&&(e=ne(n,r._$AS(n,e.values),r,i)),e}var Re=class{constructor(e,t){this._$AV=[],this._$AN=void 0,this._$AD=e,this._$AM=t}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(e){let{el:{content:t},parts:i}=this._$AD,r=(e?.creationScope??ee).importNode(t,!0);Z.currentNode=r;let o=Z.nextNode(),l=0,g=0,p=i[0];for(;p!==void 0;){if(l===p.index){let f;p.type===2?f=new ce(o,o.nextSibling,this,e):p.type===1?f=new p.ctor(o,p.name,p.strings,this,e):p.type===6&&(f=new Pe(o,this,e)),this._$AV.push(f),p=i[++g]}l!==p?.index&&(o=Z.nextNode(),l++)}return Z.currentNode=ee,r}p(e){let t=0;for(let i of this._$AV)i!==void 0&&(i.strings!==void 0?(i._$AI(e,i,t),t+=i.strings.length-2):i._$AI(e[t])),t++}},ce=class n{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(e,t,i,r){this.type=2,this._$AH=y,this._$AN=void 0,this._$AA=e,this._$AB=t,this._$AM=i,this.options=r,this._$Cv=r?.isConnected??!0}get parentNode(){let e=this._$AA.parentNode,t=this._$AM;return t!==void 0&&e?.nodeType===11&&(e=t.parentNode),e}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(e,t=this){e=ne(this,e,t),me(e)?e===y||e==null||e===""?(this._$AH!==y&&this._$AR(),this._$AH=y):e!==this._$AH&&e!==te&&this._(e):e._$litType$!==void 0?this.$(e):e.nodeType!==void 0?this.T(e):_t(e)?this.k(e):this._(e)}O(e){return this._$AA.parentNode.insertBefore(e,this._$AB)}T(e){this._$AH!==e&&(this._$AR(),this._$AH=this.O(e))}_(e){this._$AH!==y&&me(this._$AH)?this._$AA.nextSibling.data=e:this.T(ee.createTextNode(e)),this._$AH=e}$(e){let{values:t,_$litType$:i}=e,r=typeof i=="number"?this._$AC(e):(i.el===void 0&&(i.el=fe.createElement(St(i.h,i.h[0]),this.options)),i);if(this._$AH?._$AD===r)this._$AH.p(t);else{let o=new Re(r,this),l=o.u(this.options);o.p(t),this.T(l),this._$AH=o}}_$AC(e){let t=xt.get(e.strings);return t===void 0&&xt.set(e.strings,t=new fe(e)),t}k(e){ze(this._$AH)||(this._$AH=[],this._$AR());let t=this._$AH,i,r=0;for(let o of e)r===t.length?t.push(i=new n(this.O(he()),this.O(he()),this,this.options)):i=t[r],i._$AI(o),r++;r<t.length&&(this._$AR(i&&i._$AB.nextSibling,r),t.length=r)}_$AR(e=this._$AA.nextSibling,t){for(this._$AP?.(!1,!0,t);e!==this._$AB;){let i=gt(e).nextSibling;gt(e).remove(),e=i}}setConnected(e){this._$AM===void 0&&(this._$Cv=e,this._$AP?.(e))}},se=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(e,t,i,r,o){this.type=1,this._$AH=y,this._$AN=void 0,this.element=e,this.name=t,this._$AM=r,this.options=o,i.length>2||i[0]!==""||i[1]!==""?(this._$AH=Array(i.length-1).fill(new String),this.strings=i):this._$AH=y}_$AI(e,t=this,i,r){let o=this.strings,l=!1;if(o===void 0)e=ne(this,e,t,0),l=!me(e)||e!==this._$AH&&e!==te,l&&(this._$AH=e);else{let g=e,p,f;for(e=o[0],p=0;p<o.length-1;p++)f=ne(this,g[i+p],t,p),f===te&&(f=this._$AH[p]),l||=!me(f)||f!==this._$AH[p],f===y?e=y:e!==y&&(e+=(f??"")+o[p+1]),this._$AH[p]=f}l&&!r&&this.j(e)}j(e){e===y?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,e??"")}},Ie=class extends se{constructor(){super(...arguments),this.type=3}j(e){this.element[this.name]=e===y?void 0:e}},Ce=class extends se{constructor(){super(...arguments),this.type=4}j(e){this.element.toggleAttribute(this.name,!!e&&e!==y)}},qe=class extends se{constructor(e,t,i,r,o){super(e,t,i,r,o),this.type=5}_$AI(e,t=this){if((e=ne(this,e,t,0)??y)===te)return;let i=this._$AH,r=e===y&&i!==y||e.capture!==i.capture||e.once!==i.once||e.passive!==i.passive,o=e!==y&&(i===y||r);r&&this.element.removeEventListener(this.name,this,i),o&&this.element.addEventListener(this.name,this,e),this._$AH=e}handleEvent(e){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,e):this._$AH.handleEvent(e)}},Pe=class{constructor(e,t,i){this.element=e,this.type=6,this._$AN=void 0,this._$AM=t,this.options=i}get _$AU(){return this._$AM._$AU}_$AI(e){ne(this,e)}},At={M:Je,P:j,A:Qe,C:1,L:Tt,R:Re,D:_t,V:ne,I:ce,H:se,N:Ce,U:qe,B:Ie,F:Pe},In=Ye.litHtmlPolyfillSupport;In?.(fe,ce),(Ye.litHtmlVersions??=[]).push("3.3.3");var re=(n,e,t)=>{let i=t?.renderBefore??e,r=i._$litPart$;if(r===void 0){let o=t?.renderBefore??null;i._$litPart$=r=new ce(e.insertBefore(he(),o),o,void 0,t??{})}return r._$AI(n),r};var Et={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},Rt=n=>(...e)=>({_$litDirective$:n,values:e}),Le=class{constructor(e){}get _$AU(){return this._$AM._$AU}_$AT(e,t,i){this._$Ct=e,this._$AM=t,this._$Ci=i}_$AS(e,t){return this.update(e,t)}update(e,t){return this.render(...t)}};var{I:Cn}=At,It=n=>n;var Ct=()=>document.createComment(""),de=(n,e,t)=>{let i=n._$AA.parentNode,r=e===void 0?n._$AB:e._$AA;if(t===void 0){let o=i.insertBefore(Ct(),r),l=i.insertBefore(Ct(),r);t=new Cn(o,l,n,n.options)}else{let o=t._$AB.nextSibling,l=t._$AM,g=l!==n;if(g){let p;t._$AQ?.(n),t._$AM=n,t._$AP!==void 0&&(p=n._$AU)!==l._$AU&&t._$AP(p)}if(o!==r||g){let p=t._$AA;for(;p!==o;){let f=It(p).nextSibling;It(i).insertBefore(p,r),p=f}}}return t},K=(n,e,t=n)=>(n._$AI(e,t),n),qn={},qt=(n,e=qn)=>n._$AH=e,Pt=n=>n._$AH,Me=n=>{n._$AR(),n._$AA.remove()};var Lt=(n,e,t)=>{let i=new Map;for(let r=e;r<=t;r++)i.set(n[r],r);return i},$e=Rt(class extends Le{constructor(n){if(super(n),n.type!==Et.CHILD)throw Error("repeat() can only be used in text expressions")}dt(n,e,t){let i;t===void 0?t=e:e!==void 0&&(i=e);let r=[],o=[],l=0;for(let g of n)r[l]=i?i(g,l):l,o[l]=t(g,l),l++;return{values:o,keys:r}}render(n,e,t){return this.dt(n,e,t).values}update(n,[e,t,i]){let r=Pt(n),{values:o,keys:l}=this.dt(e,t,i);if(!Array.isArray(r))return this.ut=l,o;let g=this.ut??=[],p=[],f,u,m=0,$=r.length-1,v=0,w=o.length-1;for(;m<=$&&v<=w;)if(r[m]===null)m++;else if(r[$]===null)$--;else if(g[m]===l[v])p[v]=K(r[m],o[v]),m++,v++;else if(g[$]===l[w])p[w]=K(r[$],o[w]),$--,w--;else if(g[m]===l[w])p[w]=K(r[m],o[w]),de(n,p[w+1],r[m]),m++,w--;else if(g[$]===l[v])p[v]=K(r[$],o[v]),de(n,r[m],r[$]),$--,v++;else if(f===void 0&&(f=Lt(l,v,w),u=Lt(g,m,$)),f.has(g[m]))if(f.has(g[$])){let E=u.get(l[v]),d=E!==void 0?r[E]:null;if(d===null){let k=de(n,r[m]);K(k,o[v]),p[v]=k}else p[v]=K(d,o[v]),de(n,r[m],d),r[E]=null;v++}else Me(r[$]),$--;else Me(r[m]),m++;for(;v<=w;){let E=de(n,p[w+1]);K(E,o[v]),p[v++]=E}for(;m<=$;){let E=r[m++];E!==null&&Me(E)}return this.ut=l,qt(n,p),te}});(!globalThis.EventTarget||!globalThis.Event)&&console.error(`
  PartySocket requires a global 'EventTarget' class to be available!
  You can polyfill this global by adding this to your code before any partysocket imports: 
  
  \`\`\`
  import 'partysocket/event-target-polyfill';
  \`\`\`
  Please file an issue at https://github.com/partykit/partykit if you're still having trouble.
`);var Nt=class extends Event{message;error;constructor(n,e){super("error",e),this.message=n.message,this.error=n}},Ot=class extends Event{code;reason;wasClean=!0;constructor(n=1e3,e="",t){super("close",t),this.code=n,this.reason=e}},Ze={Event,ErrorEvent:Nt,CloseEvent:Ot};function Pn(n,e){if(!n)throw new Error(e)}function Ln(n){return new n.constructor(n.type,n)}function Mn(n){return"data"in n?new MessageEvent(n.type,n):"code"in n||"reason"in n?new Ot(n.code||1999,n.reason||"unknown reason",n):"error"in n?new Nt(n.error,n):new Event(n.type,n)}var Nn=typeof process<"u"&&typeof process.versions?.node<"u",On=typeof navigator<"u"&&navigator.product==="ReactNative",Ne=Nn||On?Mn:Ln,ie={maxReconnectionDelay:1e4,minReconnectionDelay:3e3,minUptime:5e3,reconnectionDelayGrowFactor:1.3,connectionTimeout:4e3,maxRetries:Number.POSITIVE_INFINITY,maxEnqueuedMessages:Number.POSITIVE_INFINITY,startClosed:!1,debug:!1},Mt=!1;function Dn(){}var Dt=class Y extends EventTarget{_ws;_retryCount=-1;_uptimeTimeout;_connectTimeout;_shouldReconnect=!0;_connectLock=!1;_binaryType="blob";_closeCalled=!1;_didWarnAboutClosedSend=!1;_messageQueue=[];_debugLogger=console.log.bind(console);_url;_protocols;_options;constructor(e,t,i={}){super(),this._url=e,this._protocols=t,this._options=i,this._options.startClosed&&(this._shouldReconnect=!1),this._options.debugLogger&&(this._debugLogger=this._options.debugLogger),this._connect()}static get CONNECTING(){return 0}static get OPEN(){return 1}static get CLOSING(){return 2}static get CLOSED(){return 3}get CONNECTING(){return Y.CONNECTING}get OPEN(){return Y.OPEN}get CLOSING(){return Y.CLOSING}get CLOSED(){return Y.CLOSED}get binaryType(){return this._ws?this._ws.binaryType:this._binaryType}set binaryType(e){this._binaryType=e,this._ws&&(this._ws.binaryType=e)}get retryCount(){return Math.max(this._retryCount,0)}get bufferedAmount(){return this._messageQueue.reduce((e,t)=>(typeof t=="string"?e+=t.length:t instanceof Blob?e+=t.size:e+=t.byteLength,e),0)+(this._ws?this._ws.bufferedAmount:0)}get extensions(){return this._ws?this._ws.extensions:""}get protocol(){return this._ws?this._ws.protocol:""}get readyState(){return this._closeCalled?Y.CLOSED:this._ws?this._ws.readyState:this._options.startClosed?Y.CLOSED:Y.CONNECTING}get url(){return this._ws?this._ws.url:""}get shouldReconnect(){return this._shouldReconnect}onclose=null;onerror=null;onmessage=null;onopen=null;close(e=1e3,t){if(this._closeCalled=!0,this._shouldReconnect=!1,this._clearTimeouts(),!this._ws){this._debug("close enqueued: no ws instance");return}if(this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING){this._debug("close: already closing or closed");return}this._disconnect(e,t)}reconnect(e,t){this._shouldReconnect=!0,this._closeCalled=!1,this._didWarnAboutClosedSend=!1,this._retryCount=-1,!this._ws||this._ws.readyState===this.CLOSED||this._ws.readyState===this.CLOSING?this._connect():(this._disconnect(e,t),this._connect())}send(e){if(this._ws&&this._ws.readyState===this.OPEN)return this._debug("send",e),this._ws.send(e),!0;this._closeCalled&&!this._didWarnAboutClosedSend&&(this._didWarnAboutClosedSend=!0,console.warn("ReconnectingWebSocket: send() was called after close(). The message has been buffered, but it will only be delivered if reconnect() is called on this socket. If this socket has been discarded, the message is lost — this usually means a stale socket reference is being used."));let{maxEnqueuedMessages:t=ie.maxEnqueuedMessages}=this._options;return this._messageQueue.length<t&&(this._debug("enqueue",e),this._messageQueue.push(e)),!1}drainQueuedMessages(){let e=this._messageQueue;return this._messageQueue=[],e}_debug(...e){this._options.debug&&this._debugLogger("RWS>",...e)}_getNextDelay(){let{reconnectionDelayGrowFactor:e=ie.reconnectionDelayGrowFactor,minReconnectionDelay:t=ie.minReconnectionDelay,maxReconnectionDelay:i=ie.maxReconnectionDelay}=this._options,r=0;return this._retryCount>0&&(r=t*e**(this._retryCount-1),r>i&&(r=i)),this._debug("next delay",r),r}_wait(){return new Promise(e=>{setTimeout(e,this._getNextDelay())})}_getNextProtocols(e){if(!e)return Promise.resolve(null);if(typeof e=="string"||Array.isArray(e))return Promise.resolve(e);if(typeof e=="function"){let t=e();if(!t)return Promise.resolve(null);if(typeof t=="string"||Array.isArray(t))return Promise.resolve(t);if(t.then)return t}throw Error("Invalid protocols")}_getNextUrl(e){if(typeof e=="string")return Promise.resolve(e);if(typeof e=="function"){let t=e();if(typeof t=="string")return Promise.resolve(t);if(t.then)return t}throw Error("Invalid URL")}_connect(){if(this._connectLock||!this._shouldReconnect)return;this._connectLock=!0;let{maxRetries:e=ie.maxRetries,connectionTimeout:t=ie.connectionTimeout}=this._options;if(this._retryCount>=e){this._debug("max retries reached",this._retryCount,">=",e),this._connectLock=!1;return}this._retryCount++,this._debug("connect",this._retryCount),this._removeListeners(),this._wait().then(()=>Promise.all([this._getNextUrl(this._url),this._getNextProtocols(this._protocols||null)])).then(([i,r])=>{if(this._closeCalled){this._connectLock=!1;return}!this._options.WebSocket&&typeof WebSocket>"u"&&!Mt&&(console.error(`‼️ No WebSocket implementation available. You should define options.WebSocket. 

For example, if you're using node.js, run \`npm install ws\`, and then in your code:

import PartySocket from 'partysocket';
import WS from 'ws';

const partysocket = new PartySocket({
  host: "127.0.0.1:1999",
  room: "test-room",
  WebSocket: WS
});

`),Mt=!0);let o=this._options.WebSocket||WebSocket;this._debug("connect",{url:i,protocols:r}),this._ws=r?new o(i,r):new o(i),this._ws.binaryType=this._binaryType,this._connectLock=!1,this._addListeners(),this._connectTimeout=setTimeout(()=>this._handleTimeout(),t)}).catch(i=>{this._connectLock=!1,this._handleError(new Ze.ErrorEvent(Error(i.message),this))})}_handleTimeout(){this._debug("timeout event"),this._handleError(new Ze.ErrorEvent(Error("TIMEOUT"),this))}_disconnect(e=1e3,t){if(this._clearTimeouts(),!!this._ws){this._removeListeners();try{(this._ws.readyState===this.OPEN||this._ws.readyState===this.CONNECTING)&&this._ws.close(e,t),this._handleClose(new Ze.CloseEvent(e,t,this))}catch{}}}_acceptOpen(){this._debug("accept open"),this._retryCount=0}_handleOpen=e=>{this._debug("open event");let{minUptime:t=ie.minUptime}=this._options;clearTimeout(this._connectTimeout),this._uptimeTimeout=setTimeout(()=>this._acceptOpen(),t),Pn(this._ws,"WebSocket is not defined"),this._ws.binaryType=this._binaryType,this._messageQueue.forEach(i=>{this._ws?.send(i)}),this._messageQueue=[],this.onopen&&this.onopen(e),this.dispatchEvent(Ne(e))};_handleMessage=e=>{this._debug("message event"),this.onmessage&&this.onmessage(e),this.dispatchEvent(Ne(e))};_handleError=e=>{this._debug("error event",e.message),this._disconnect(void 0,e.message==="TIMEOUT"?"timeout":void 0),this.onerror&&this.onerror(e),this._debug("exec error listeners"),this.dispatchEvent(Ne(e)),this._connect()};_handleClose=e=>{this._debug("close event"),this._clearTimeouts(),this._options.shouldReconnectOnClose&&!this._options.shouldReconnectOnClose(e)&&(this._shouldReconnect=!1),this._shouldReconnect&&this._connect(),this.onclose&&this.onclose(e),this.dispatchEvent(Ne(e))};_removeListeners(){this._ws&&(this._debug("removeListeners"),this._ws.removeEventListener("open",this._handleOpen),this._ws.removeEventListener("close",this._handleClose),this._ws.removeEventListener("message",this._handleMessage),this._ws.removeEventListener("error",this._handleError),this._ws.addEventListener("error",Dn))}_addListeners(){this._ws&&(this._debug("addListeners"),this._ws.addEventListener("open",this._handleOpen),this._ws.addEventListener("close",this._handleClose),this._ws.addEventListener("message",this._handleMessage),this._ws.addEventListener("error",this._handleError))}_clearTimeouts(){clearTimeout(this._connectTimeout),clearTimeout(this._uptimeTimeout)}};var Ht={not_configured:503,unauthorized:401,forbidden:403,rate_limited:429,payload_too_large:413,not_found:404,method_not_allowed:405,bad_request:400,conflict:409,internal:500};var Wt=Ht,N=class extends Error{status;code;constructor(e,t,i,r){super(i,r),this.name="HighwaterError",this.status=e,this.code=t}};function Oe(){let n=crypto.getRandomValues(new Uint8Array(16));return`k-${Array.from(n,e=>e.toString(16).padStart(2,"0")).join("")}`}var Hn=7e3,Wn=2e4;function Ft(n,e,t){let i=n.WebSocket??globalThis.WebSocket;if(!i)throw new Error("no WebSocket implementation: pass `WebSocket` (e.g. from the ws package)");let r=t.auth??(n.WebSocket&&n.token?"header":"ticket"),o=t.pingEveryMs??Hn,l=t.silenceMs??Wn,g=n.baseUrl.replace(/^http/,"ws"),p=n.token,f=t.after??0,u="connecting",m=!1,$=!1,v=Date.now(),w=0,E=t.ticket,d=new Map,k=T=>{T!==u&&(u=T,t.onState?.(T))},x=()=>{for(let T of d.values())T.reject(new N(0,"disconnected","the socket closed before an answer"));d.clear()},O=()=>{x(),$||k(m?"reconnecting":"connecting")},H=async()=>{try{for await(let T of n.history(e,f))for(let P of T){if($)return;if(!(P.seq<=f)){if(P.seq!==f+1)return;f=P.seq,t.onFrame({type:"event",event:P})}}}catch{}},_=async()=>{(t.catchUp??"pages")==="pages"&&await H();let T=`${g}/v1/sessions/${encodeURIComponent(e)}/ws?after=${f}`;if(r==="ticket"){let P=E;if(E=void 0,!P)try{P=(await n.createTicket(e)).ticket}catch(R){let D=R;throw[401,403,404,503].includes(D.status)&&W(D),R}T+=`&ticket=${encodeURIComponent(P)}`}return T},b=r==="header"&&p?function(P){return new i(P,{headers:{authorization:`Bearer ${p}`}})}:i,M=new Dt(_,null,{WebSocket:b,minReconnectionDelay:t.minDelayMs??250,maxReconnectionDelay:t.maxDelayMs??1e4,reconnectionDelayGrowFactor:2,connectionTimeout:2e4}),W=T=>{$||($=!0,clearInterval(Q),M.close(1e3,"gave up"),x(),k("closed"),t.onFatal?.(T))},G=T=>{v=Date.now();let P=typeof T=="string"?T:new TextDecoder().decode(T),R;try{R=JSON.parse(P)}catch{return}if(R.type!=="pong"){if(R.type==="event"){let D=R.event.seq;if(D<=f)return;if(D!==f+1){O(),M.reconnect(4e3,"gap");return}f=D}else if(R.type==="ready")m=!0,k("open");else if((R.type==="ack"||R.type==="error")&&R.id!==void 0&&d.has(R.id)){let D=d.get(R.id);d.delete(R.id),R.type==="ack"?D.resolve(R.result):D.reject(new N(Wt[R.error.code]??0,R.error.code,R.error.message));return}t.onFrame(R)}};M.addEventListener("open",()=>{v=Date.now()}),M.addEventListener("message",T=>G(T.data)),M.addEventListener("close",O);let Q=setInterval(()=>{$||M.readyState!==1||(Date.now()-v>l?(O(),M.reconnect(4001,"silent")):M.send('{"type":"ping"}'))},o);return{get lastSeq(){return f},get state(){return u},get retries(){return Math.max(0,M.retryCount)},send(T){if(M.readyState!==1||u!=="open")return Promise.reject(new N(0,"disconnected","the socket is not open"));let P=`c${++w}`,R=T.type==="message"&&!T.idempotencyKey?{...T,idempotencyKey:Oe()}:T;return new Promise((D,_e)=>{d.set(P,{resolve:D,reject:_e}),M.send(JSON.stringify({...R,id:P}))})},close(){$||($=!0,clearInterval(Q),x(),M.close(1e3,"client closed"),k("closed"))}}}var Fn=500,ve=class{baseUrl;#t;#r;#n;constructor(e){this.baseUrl=e.baseUrl.replace(/\/+$/,""),this.#t=e.token;let t=e.fetch??globalThis.fetch;this.#r=(i,r)=>t(i,r),this.#n=e.WebSocket}createSession(e={}){return this.#e("POST","/v1/sessions",e)}listSessions(e={}){return this.#e("GET",`/v1/sessions${ye(e)}`)}async listChildren(e){let t=[];for(let i;;){let r=await this.listSessions({limit:100,...i?{before:i}:{}});if(t.push(...r.sessions.filter(o=>o.parentId===e)),!r.next)return t;i=r.next}}getSession(e){return this.#e("GET",C(e))}patchSession(e,t){return this.#e("PATCH",C(e),t)}sendMessage(e,t,i=Oe()){return this.#e("POST",`${C(e)}/messages`,{text:t,idempotencyKey:i})}stop(e){return this.#e("POST",`${C(e)}/stop`)}decideApproval(e,t,i,r={}){return this.#e("POST",`${C(e)}/approvals/${encodeURIComponent(t)}`,{decision:i,...r})}dismissRecoveryNotice(e,t){return this.#e("POST",`${C(e)}/recovery-notice/dismiss`,{atSeq:t})}events(e,t=0,i=500){return this.#e("GET",`${C(e)}/events${ye({after:t,limit:i})}`)}async*history(e,t=0,i=Fn){let r=t;for(;;){let o=i-r%i,l=await this.events(e,r,o);if(l.events.length>0&&(yield l.events,r=l.events.at(-1).seq),l.events.length<o)return}}transcript(e,t={}){return this.#e("GET",`${C(e)}/transcript${ye(t)}`)}context(e){return this.#e("GET",`${C(e)}/context`)}verify(e){return this.#e("GET",`${C(e)}/verify`)}async exportNdjson(e){return(await this.#s("GET",`${C(e)}/export`)).text()}files(e,t={}){return this.#e("GET",`${C(e)}/files${ye(t)}`)}providers(){return this.#e("GET","/v1/providers")}async file(e,t){let i=t.split("/").map(encodeURIComponent).join("/");return(await this.#s("GET",`${C(e)}/files/${i}`)).text()}async archive(e,t,i={}){return(await this.#s("GET",`${C(e)}/archive/${t}${ye(i)}`)).text()}inbox(e,t){return this.#e("POST",`${C(e)}/inbox`,t)}fork(e,t){return this.#e("POST",`${C(e)}/fork`,{throughSeq:t})}createTrigger(e,t){return this.#e("POST",`${C(e)}/triggers`,t)}triggers(e){return this.#e("GET",`${C(e)}/triggers`)}async deleteTrigger(e,t){await this.#s("DELETE",`${C(e)}/triggers/${encodeURIComponent(t)}`)}runs(e){return this.#e("GET",`${C(e)}/runs`)}resume(e,t,i){return this.#e("POST",`${C(e)}/runs/${encodeURIComponent(t)}/resume`,i)}records(e){return this.#e("GET",`${C(e)}/records`)}record(e,t){return this.#e("GET",`${C(e)}/records/${encodeURIComponent(t)}`)}putRecord(e,t,i){return this.#e("PUT",`${C(e)}/records/${encodeURIComponent(t)}`,i)}appendRecordEntry(e,t,i){return this.#e("POST",`${C(e)}/records/${encodeURIComponent(t)}/entries`,i)}createTicket(e){return this.#e("POST",`${C(e)}/tickets`)}async#e(e,t,i){return await(await this.#s(e,t,i)).json()}async#s(e,t,i){let r={};this.#t&&(r.authorization=`Bearer ${this.#t}`),i!==void 0&&(r["content-type"]="application/json");let o;try{o=await this.#r(`${this.baseUrl}${t}`,{method:e,headers:r,...i===void 0?{}:{body:JSON.stringify(i)}})}catch(f){throw new N(0,"network_error",`${e} ${t}: ${String(f)}`,{cause:f})}if(o.ok)return o;let l=await o.text().catch(()=>""),g=`http_${o.status}`,p=l.slice(0,500)||o.statusText;try{let f=JSON.parse(l);typeof f.error?.code=="string"&&(g=f.error.code),typeof f.error?.message=="string"&&(p=f.error.message)}catch{}throw new N(o.status,g,p)}connect(e,t){return Ft({baseUrl:this.baseUrl,token:this.#t,WebSocket:this.#n,createTicket:i=>this.createTicket(i),history:(i,r)=>this.history(i,r)},e,t)}};function C(n){return`/v1/sessions/${encodeURIComponent(n)}`}function ye(n){let e=new URLSearchParams;for(let[i,r]of Object.entries(n))r!==void 0&&e.set(i,String(r));let t=e.toString();return t?`?${t}`:""}function De(n){if(n===null||typeof n!="object"){let r=JSON.stringify(n);return r===void 0?"null":r}if(Array.isArray(n))return`[${n.map(De).join(",")}]`;let e=n,t=Object.keys(e).filter(r=>e[r]!==void 0).sort(),i="{";for(let r=0;r<t.length;r++){let o=t[r];r>0&&(i+=","),i+=`${JSON.stringify(o)}:${De(e[o])}`}return`${i}}`}var Ts=64*1024;var Un=new Uint32Array([1116352408,1899447441,3049323471,3921009573,961987163,1508970993,2453635748,2870763221,3624381080,310598401,607225278,1426881987,1925078388,2162078206,2614888103,3248222580,3835390401,4022224774,264347078,604807628,770255983,1249150122,1555081692,1996064986,2554220882,2821834349,2952996808,3210313671,3336571891,3584528711,113926993,338241895,666307205,773529912,1294757372,1396182291,1695183700,1986661051,2177026350,2456956037,2730485921,2820302411,3259730800,3345764771,3516065817,3600352804,4094571909,275423344,430227734,506948616,659060556,883997877,958139571,1322822218,1537002063,1747873779,1955562222,2024104815,2227730452,2361852424,2428436474,2756734187,3204031479,3329325298]),U=(n,e)=>n>>>e|n<<32-e;function Ut(n){let e=new TextEncoder().encode(n),t=e.length*8,i=new Uint8Array(e.length+9+63>>6<<6>>>0);i.set(e),i[e.length]=128;let r=new DataView(i.buffer);r.setUint32(i.length-8,Math.floor(t/4294967296)),r.setUint32(i.length-4,t>>>0);let o=new Uint32Array([1779033703,3144134277,1013904242,2773480762,1359893119,2600822924,528734635,1541459225]),l=new Uint32Array(64);for(let g=0;g<i.length;g+=64){for(let d=0;d<16;d++)l[d]=r.getUint32(g+d*4);for(let d=16;d<64;d++){let k=l[d-15],x=l[d-2],O=U(k,7)^U(k,18)^k>>>3,H=U(x,17)^U(x,19)^x>>>10;l[d]=l[d-16]+O+l[d-7]+H>>>0}let[p,f,u,m,$,v,w,E]=o;for(let d=0;d<64;d++){let k=U($,6)^U($,11)^U($,25),x=$&v^~$&w,O=E+k+x+Un[d]+l[d]>>>0,H=U(p,2)^U(p,13)^U(p,22),_=p&f^p&u^f&u,b=H+_>>>0;E=w,w=v,v=$,$=m+O>>>0,m=u,u=f,f=p,p=O+b>>>0}o[0]=o[0]+p>>>0,o[1]=o[1]+f>>>0,o[2]=o[2]+u>>>0,o[3]=o[3]+m>>>0,o[4]=o[4]+$>>>0,o[5]=o[5]+v>>>0,o[6]=o[6]+w>>>0,o[7]=o[7]+E>>>0}return Array.from(o,g=>g.toString(16).padStart(8,"0")).join("")}function jt(n,e=Ut){let t=n?.$blob;return t&&typeof t.sha256=="string"?t.sha256:e(De(n??null))}function Vt(n){let e=n.actions??{};if(e.turnClose)return"turnClose";if(e.modelRequest)return"modelRequest";if(e.toolDispatch)return"toolDispatch";if(e.permissionRequest)return"permissionRequest";if(e.permissionDecision&&!n.content)return"permissionDecision";if(e.stateDelta&&!n.content){let t=Object.keys(e.stateDelta);return t.length===1?`state:${t[0]}`:"state"}return n.content?.type??"runtime"}function Bt(n){let e=n.actions?.stateDelta?.recoveryNotice;return e?{rerun:e.rerun??[],needsReview:e.needsReview??[],reissued:e.reissued??[]}:null}function be(n){return`Recovered after a restart: ${[`${n.rerun.length} call(s) re-run`,`${n.needsReview.length} need review`,`${n.reissued.length} model call(s) issued again`].join(", ")}.`}var He=class{items=[];spans=[];marks=[];lastSeq=0;#t=new Map;#r=new Map;#n=new Map;#e=null;add(e){if(e.seq<=this.lastSeq)return!1;this.lastSeq=e.seq;let t=Date.parse(e.at),i=e.content,r=e.actions??{},o=r.stateDelta??{},l=u=>this.items.push({...u,rev:0,at:e.at});if(i?.type==="text"&&(e.author==="user"||e.author==="model"))l({kind:"message",seq:e.seq,role:e.author==="user"?"user":"assistant",text:i.text,...e.source?{source:e.source}:{},...e.turnId?{turnId:e.turnId}:{}}),e.author==="user"&&e.turnId&&!this.#e&&(this.#e={kind:"turn",key:`turn:${e.turnId}`,label:i.text.slice(0,80),start:t,seq:e.seq},this.spans.push(this.#e));else if(i?.type==="thinking")l({kind:"thinking",seq:e.seq,text:i.text});else if(i?.type==="functionCall"){let u={kind:"tool",seq:e.seq,callId:i.callId,tool:i.name,args:i.args,state:"pending",rev:0,at:e.at};this.#t.set(i.callId,u),this.#r.set(i.callId,i.name),this.items.push(u)}else i?.type==="error"&&(l({kind:"error",seq:e.seq,code:i.code,message:i.message}),this.marks.push({kind:"error",at:t,label:`${i.code}: ${i.message}`,seq:e.seq}));if(r.permissionRequest){let u=this.#t.get(r.permissionRequest.callId);u&&this.#s(u,{state:"waiting_approval",requestId:r.permissionRequest.requestId}),this.#i({kind:"approval",key:`approval:${r.permissionRequest.requestId}`,label:`approval: ${r.permissionRequest.tool}`,start:t,seq:e.seq})}if(r.permissionDecision){let u=r.permissionDecision.requestId;if(r.permissionDecision.decision==="approve")for(let m of this.#t.values())m.requestId===u&&m.state==="waiting_approval"&&this.#s(m,{state:"pending"});this.#o(`approval:${u}`,t,r.permissionDecision.decision)}if(r.toolDispatch){let u=this.#t.get(r.toolDispatch.callId);u&&u.state!=="ok"&&this.#s(u,{state:"running",startedAt:t}),this.#i({kind:"tool",key:`tool:${r.toolDispatch.callId}`,label:r.toolDispatch.tool,start:t,seq:e.seq})}if(i?.type==="functionResponse"){let u=this.#t.get(i.callId);u&&this.#s(u,{state:i.status,response:i.response,endedAt:t,...r.toolRecovery?{recovery:r.toolRecovery.strategy}:{}}),this.#o(`tool:${i.callId}`,t,i.status)}if(r.modelRequest&&e.invocationId){let u=r.modelRequest.purpose,m=`model:${e.invocationId}`;this.#n.has(m)||this.#i({kind:"model",key:m,label:u==="compaction"?"compaction call":`model call (~${r.modelRequest.estimatedTokens} tokens)`,start:t,seq:e.seq}),this.#n.has(`attempt:${e.invocationId}`)||this.#i({kind:"attempt",key:`attempt:${e.invocationId}`,label:"attempt 1",start:t,seq:e.seq})}let g=o.modelAttempt;if(g){this.#o(`attempt:${g.invocationId}`,t,g.code);let u=Date.parse(g.retryAt);this.#i({kind:"attempt",key:`attempt:${g.invocationId}`,label:`attempt ${g.attempt+1}`,start:Number.isFinite(u)?Math.max(t,u):t,seq:e.seq}),g.code==="restart"&&this.marks.push({kind:"restart",at:t,label:"restart: call re-issued",seq:e.seq})}if(r.tokenUsage&&e.invocationId&&(this.#o(`attempt:${e.invocationId}`,t,"ok"),this.#o(`model:${e.invocationId}`,t,String(o.finishReason??"answered"))),o.checkpoint){let u=o.checkpoint;this.marks.push({kind:"compaction",at:t,label:`checkpoint through seq ${u.throughSeq??"?"}`,seq:e.seq})}let p=Bt(e);if(p&&(l({kind:"recovery",seq:e.seq,...p}),this.marks.push({kind:"recovery",at:t,label:be(p),seq:e.seq})),o.runStarted?.cause==="recovery"&&this.marks.push({kind:"restart",at:t,label:"run taken over after a restart",seq:e.seq}),r.turnClose){l({kind:"turn",seq:e.seq,turnId:e.turnId,reason:r.turnClose.reason});for(let u of this.#n.values())u.end===void 0&&(u.end=t);this.#n.clear(),this.#e&&(this.#e.end=t,this.#e.outcome=r.turnClose.reason,this.#e=null)}return!0}toolOf(e){return this.#r.get(e)}#s(e,t){Object.assign(e,t),e.rev++}#i(e){this.spans.push(e),this.#n.set(e.key,e)}#o(e,t,i){let r=this.#n.get(e);r&&(r.end=Math.max(r.start,t),r.outcome=i,this.#n.delete(e))}};function Gt(n,e){let t=`${e.invocationId}:${e.kind}`,i=n.get(t),r=e.attempt??1;if(!(i&&r<i.attempt))if(e.replace||!i||r>i.attempt){for(let[o,l]of n)l.invocationId===e.invocationId&&l.attempt<r&&n.delete(o);n.set(t,{invocationId:e.invocationId,attempt:r,kind:e.kind,text:e.text})}else i.text+=e.text}function V(n){return n<1e3?`${Math.round(n)} ms`:n<6e4?`${(n/1e3).toFixed(1)} s`:n<36e5?`${Math.floor(n/6e4)} min ${String(Math.round(n%6e4/1e3)).padStart(2,"0")} s`:`${Math.floor(n/36e5)} h ${Math.round(n%36e5/6e4)} min`}function We(n){return n<1024?`${n} B`:n<1024*1024?`${(n/1024).toFixed(1)} KiB`:`${(n/1024/1024).toFixed(1)} MiB`}var et=[{kind:"turn",label:"Turns"},{kind:"model",label:"Model calls"},{kind:"attempt",label:"Attempts"},{kind:"tool",label:"Tool calls"},{kind:"approval",label:"Approvals"},{kind:"marks",label:"Events"}],J=30,tt=96,oe=22;function jn(n,e){let t=[.01,.02,.05,.1,.2,.5,1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200,21600,43200,86400].map(i=>i*1e3);return t.find(i=>n/i<=e)??t.at(-1)}function Vn(n,e){let t=l=>n.filter(g=>g.kind===l),i=l=>{let g=l.map(u=>[u.start,u.end??e]).sort((u,m)=>u[0]-m[0]),p=0,f=null;for(let[u,m]of g)!f||u>f[1]?(f&&(p+=f[1]-f[0]),f=[u,m]):f[1]=Math.max(f[1],m);return f&&(p+=f[1]-f[0]),p},o=t("attempt").filter(l=>l.outcome&&l.outcome!=="ok").length;return[{kind:"turn",label:"Turns open",ms:i(t("turn")),count:t("turn").length},{kind:"model",label:"Model calls",ms:i(t("model")),count:t("model").length,...o?{extra:`${o} failed attempt${o===1?"":"s"} retried`}:{}},{kind:"tool",label:"Tool calls",ms:i(t("tool")),count:t("tool").length},{kind:"approval",label:"Waiting for approval",ms:i(t("approval")),count:t("approval").length}]}function Kt(n,e,t,i){if(n.length===0&&e.length===0)return c`<p class="muted empty">Nothing has happened yet: send a message and the timeline fills in.</p>`;let r=Math.min(...n.map(d=>d.start),...e.map(d=>d.at)),o=Math.max(r+10,...n.map(d=>d.end??t),...e.map(d=>d.at)),l=Math.max(120,i-tt-12),g=d=>tt+(d-r)/(o-r)*l,p=oe+et.length*J+4,f=jn(o-r,Math.max(2,Math.floor(l/90))),u=[];for(let d=0;d<=o-r;d+=f)u.push(d);let m=d=>oe+et.findIndex(k=>k.kind===d)*J,$=d=>{let k=m(d.kind)+6,x=g(d.start),O=Math.max(2,g(d.end??t)-x),H=(d.end??t)-d.start,_=d.end===void 0?"open":d.outcome??"";return ge`<rect class="bar ${d.kind}" data-outcome=${_} x=${x.toFixed(1)} y=${k} width=${O.toFixed(1)} height=${J-12} rx="2"><title>${d.label} — ${V(H)}${d.end===void 0?" so far":""}${d.outcome?` (${d.outcome})`:""} · seq ${d.seq}</title></rect>`},v=d=>{let k=g(d.at),x=m("marks")+J/2;return ge`<g class="mark ${d.kind}"><path d="M${k.toFixed(1)} ${x-7} l6 7 l-6 7 l-6 -7 z"></path><title>${d.label} · seq ${d.seq}</title></g>`},w=Vn(n,t),E=o-r;return c`
    <figure class="timeline">
      <svg width=${i} height=${p} role="img" aria-label=${`Timeline over ${V(E)}: ${w.filter(d=>d.count).map(d=>`${d.label.toLowerCase()} ${V(d.ms)}`).join(", ")}`}>
        ${u.map(d=>ge`<line class="tick" x1=${g(r+d)} x2=${g(r+d)} y1=${oe-4} y2=${p}></line>
            <text class="tick-label" x=${g(r+d)+3} y=${oe-8}>+${V(d)}</text>`)}
        ${et.map((d,k)=>ge`<text class="lane-label" x="4" y=${oe+k*J+J/2+4}>${d.label}</text>
            <line class="lane" x1=${tt} x2=${i} y1=${oe+(k+1)*J} y2=${oe+(k+1)*J}></line>`)}
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
  `}var Bn=5e3,Yt=400,nt=100,Gn=400,B=[{id:"transcript",label:"Transcript"},{id:"context",label:"Context"},{id:"log",label:"Log"},{id:"files",label:"Files"},{id:"runs",label:"Runs"},{id:"timeline",label:"Timeline"}];function Kn(n,e){return n.kind==="budget"?`Paused at the step budget: ${n.modelCalls??"?"} of ${e??"?"} model calls used this turn.`:n.kind==="child"?"Waiting for a sub-session to finish.":`Waiting${n.reason?`: ${n.reason}`:" for a resume"}.`}function Qt(n){let{client:e,id:t,root:i,handleAuth:r,errorText:o}=n,l=new He,g=new Map,p=new Map,f=new Map,u=null,m=null,$="connecting",v=null,w="",E=0,d=!1,k=!1,x=lt(),O=!1,H=n.draft??"",_=null,b="",M=-1,W=null,G=null,Q="",T="idle",P=null,R,D="",_e=-1,F=null,ae=null,ke="",at=-1;function lt(){let s=location.hash.slice(1);return B.some(a=>a.id===s)?s:"transcript"}let ct=()=>{x=lt(),Ge(),A()},Se=()=>A();window.addEventListener("hashchange",ct),window.addEventListener("online",Se),window.addEventListener("offline",Se);function A(){!E&&!d&&(E=requestAnimationFrame(dn))}async function Be(s,a){try{let h=s();if(h)return await h}catch(h){if(!(h instanceof N&&h.code==="disconnected"))throw h}return a()}async function en(s){let a=s.querySelector("textarea"),h=a.value;if(!h.trim())return;let S=n.randomKey();O=!0,w="",A();try{await Be(()=>m?.send({type:"message",text:h,idempotencyKey:S}),()=>e.sendMessage(t,h,S)),a.value===h&&(a.value=""),H=""}catch(q){r(q)||(w=`Not sent: ${o(q)}`)}finally{O=!1,A(),a.focus()}}async function tn(){try{le(await Be(()=>m?.send({type:"stop"}),()=>e.stop(t)))}catch(s){r(s)||(w=`Stop failed: ${o(s)}`),A()}}async function nn(s){let a=i.querySelector("#message"),h=a?.value.trim()??"";try{await e.resume(t,s.runId,{waitId:s.waitId,...h?{text:h}:{}}),a&&(a.value="")}catch(S){r(S)||(w=`Resume failed: ${o(S)}`),A()}}async function dt(s,a,h){try{le(await Be(()=>m?.send({type:"approval",requestId:s,decision:a,argsDigest:h}),()=>e.decideApproval(t,s,a,{argsDigest:h})))}catch(S){if(r(S))return;w=S instanceof N&&S.status===409?`Not decided: ${S.message}. Reload to review the call again.`:`Decision failed: ${o(S)}`,A()}}async function sn(s){try{le(await e.dismissRecoveryNotice(t,s))}catch(a){if(r(a))return;a instanceof N&&a.status===409?le(await e.getSession(t)):w=`Dismiss failed: ${o(a)}`,A()}}async function rn(s){s.preventDefault();try{let a=URL.createObjectURL(new Blob([await e.exportNdjson(t)],{type:"application/x-ndjson"})),h=document.createElement("a");h.href=a,h.download=`highwater-${t.slice(0,12)}.ndjson`,h.click(),setTimeout(()=>URL.revokeObjectURL(a),1e4)}catch(a){r(a)||(w=`Export failed: ${o(a)}`),A()}}async function on(){T="running",A();try{T=await e.verify(t)}catch(s){T=`verify failed: ${o(s)}`}A()}function Ge(){x==="context"&&pt(),x==="log"&&!W&&Te(null),x==="files"&&Ae(),x==="runs"&&ut()}async function ut(){let s=u?.highWater??0;if(at!==s){at=s;try{let[a,h]=await Promise.all([e.runs(t),e.triggers(t)]);ae={runs:a.runs,triggers:h.triggers},ke=""}catch(a){r(a)||(ke=o(a))}A()}}async function pt(){let s=u?.highWater??0;if(M!==s){M=s;try{_=await e.context(t),b=""}catch(a){r(a)||(b=o(a))}A()}}async function Te(s){try{let a=s??Math.max(0,(u?.highWater??0)-nt);W=await e.events(t,a,nt),G=a,Q=""}catch(a){r(a)||(Q=o(a))}A()}async function Ae(s=!1){let a=u?.highWater??0;if(!(!s&&_e===a)){_e=a;try{let h=await e.files(t,s&&R?{after:R}:{});P=s&&P?[...P,...h.files]:h.files,R=h.next,D=""}catch(h){r(h)||(D=o(h))}A()}}async function an(s){F={path:s,content:null},A();try{F={path:s,content:await e.file(t,s)}}catch(a){r(a)||(F={path:s,content:null,error:o(a)})}A()}function le(s){u=s,document.title=`${s.title||"Untitled session"} — highwater`,A()}function ln(s){if(s.type==="ready"||s.type==="session")s.type==="ready"&&g.clear(),le(s.session);else if(s.type==="event"){let a=s.event;l.add(a),a.invocationId&&(a.content?.type==="text"||a.content?.type==="thinking")&&g.delete(`${a.invocationId}:${a.content.type}`),a.actions?.turnClose&&(g.clear(),x==="context"&&pt(),x==="files"&&Ae(),x==="runs"&&ut()),a.content?.type==="functionResponse"&&x==="files"&&Ae(),A()}else s.type==="delta"?(cn(s),A()):s.type==="error"&&(w=`${s.error.code}: ${s.error.message}`,A())}function cn(s){Gt(g,s)}function dn(){if(E=0,d)return;let s=window.innerHeight+window.scrollY>=document.body.scrollHeight-120,a=performance.now();re(pn(),i),window.__hwDraws?.push(performance.now()-a),s&&x==="transcript"&&un()&&window.scrollTo({top:document.body.scrollHeight})}let ht=0;function un(){let s=l.lastSeq!==ht;return ht=l.lastSeq,s||g.size>0}function pn(){if(v)return c`<a href="/" data-nav class="back">← Sessions</a>
        <p class="error" role="alert">${v}</p>`;let s=u,a=Math.max(s?.highWater??0,l.lastSeq);return c`
      <a href="/" data-nav class="back">← Sessions</a>
      <header class="session-head">
        <h1>${s?s.title||"Untitled session":"Session"}</h1>
        <div class="meta">
          ${s?rt(s.status):y} ${s?it(s):y}
          <span class="muted count" aria-live="off">${a} events</span>
          ${Yn(s)}
          ${fn()}
        </div>
      </header>
      ${gn()}
      <p class="error" role="alert">${w}</p>
      <div class="tabs" role="tablist" aria-label="Session views" @keydown=${mn}>
        ${B.map(h=>c`<button
            type="button"
            role="tab"
            id=${`tab-${h.id}`}
            aria-controls=${`panel-${h.id}`}
            aria-selected=${h.id===x?"true":"false"}
            tabindex=${h.id===x?"0":"-1"}
            @click=${()=>mt(h.id)}
          >${h.label}</button>`)}
      </div>
      <section class="panel" role="tabpanel" id=${`panel-${x}`} aria-labelledby=${`tab-${x}`}>
        ${x==="transcript"?yn():y} ${x==="context"?_n():y}
        ${x==="log"?Sn():y} ${x==="files"?An():y}
        ${x==="runs"?Tn():y}
        ${x==="timeline"?Kt(l.spans,l.marks,Date.now(),hn()):y}
      </section>
      ${$n()}
    `}function hn(){let s=i.querySelector(".panel");return Math.max(280,Math.min((s?.clientWidth??i.clientWidth)-2||800,1200))}function mt(s){s!==x&&(history.replaceState(null,"",s==="transcript"?location.pathname:`#${s}`),x=s,Ge(),A())}function mn(s){let a=B.findIndex(S=>S.id===x),h=s.key==="ArrowRight"?(a+1)%B.length:s.key==="ArrowLeft"?(a+B.length-1)%B.length:s.key==="Home"?0:s.key==="End"?B.length-1:-1;h<0||(s.preventDefault(),mt(B[h].id),requestAnimationFrame(()=>i.querySelector(`#tab-${B[h].id}`)?.focus()))}function fn(){let s=$!=="open"&&(!navigator.onLine||(m?.retries??0)>=3),a=$==="open"?"live":s?"offline":$==="reconnecting"?"reconnecting":"connecting";return c`<span class="conn" role="status" data-state=${a}>${a==="live"?"● live":a==="offline"?"○ offline — retrying":a==="reconnecting"?"◌ reconnecting…":"◌ connecting…"}</span>`}function gn(){let s=u?.recoveryNotice;if(!s)return y;let a=h=>c`<li><code>${l.toolOf(h)??"call"}</code> ${h}</li>`;return c`<section class="banner" aria-label="Recovery notice">
      <strong>This session recovered after a restart (event ${s.atSeq}).</strong>
      ${s.rerun.length?c`<p>Re-run (safe to repeat):</p><ul>${s.rerun.map(a)}</ul>`:y}
      ${s.needsReview.length?c`<p>Needs review (the side effect may or may not have happened):</p><ul>${s.needsReview.map(a)}</ul>`:y}
      <p class="recovery-summary">${be(s)}</p>
      <button type="button" class="dismiss" @click=${()=>{sn(s.atSeq)}}>Dismiss</button>
    </section>`}function $n(){let s=u,a=s?.wait??null;return c`<form
      class="composer"
      @submit=${h=>{h.preventDefault(),en(h.currentTarget)}}
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
        <button type="button" class="danger" ?disabled=${!s?.openTurn} @click=${()=>{tn()}}>Stop</button>
        ${a&&a.kind!=="child"?c`<button type="button" @click=${()=>{nn(a)}}>Resume</button>`:y}
      </div>
      ${a?c`<p class="wait-note muted" role="status">
              ${Kn(a,s?.maxModelCallsPerTurn)}
            </p>`:y}
    </form>`}function yn(){let s=new Map(u?.pendingApprovals.map(I=>[I.requestId,I])),a=l.items,h=k||a.length<=Yt?a:a.slice(-Yt),S=a.length-h.length,q=[...g.values()];return c`
      ${S>0?c`<button type="button" class="link earlier" @click=${()=>{k=!0,A()}}>Show ${S} earlier items</button>`:y}
      ${a.length===0&&q.length===0?c`<p class="muted empty">No messages yet. Write one below; the agent answers here as it works.</p>`:y}
      <ol class="transcript" aria-label="Transcript" aria-busy=${q.length>0?"true":"false"}>
        ${$e(h,I=>`${I.kind}:${I.seq}`,I=>vn(I,s))}
      </ol>
      <div class="streaming" aria-hidden="true">
        ${q.map(I=>I.kind==="text"?c`<div class="item msg assistant streaming">
                <div class="who">Assistant${I.attempt>1?c` <span class="muted">(attempt ${I.attempt})</span>`:y}</div>
                <div class="text">${I.text}</div>
              </div>`:c`<details class="item thinking streaming"><summary>Thinking…</summary><pre>${I.text}</pre></details>`)}
      </div>
    `}function vn(s,a){let h=`${s.kind}:${s.seq}`,S=s.kind==="tool"&&s.requestId?a.get(s.requestId):void 0,q=S!==void 0,I=p.get(h),L=s.kind==="tool"&&s.startedAt!==void 0&&s.endedAt===void 0;if(I&&I.rev===s.rev&&!q&&!I.actionable&&!L)return I.tpl;let z=bn(s,S);return p.set(h,{rev:s.rev,actionable:q,tpl:z}),z}function bn(s,a){switch(s.kind){case"message":return c`<li class="item msg ${s.role}" data-seq=${s.seq}>
          <div class="who">
            ${s.role==="user"?"You":"Assistant"}
            ${s.source&&!["http","ws"].includes(s.source)?c`<span class="muted"> via ${s.source}</span>`:y}
          </div>
          <div class="text">${s.text}</div>
        </li>`;case"thinking":return c`<li class="item thinking" data-seq=${s.seq}>
          <details><summary>Thinking (${s.text.length} chars)</summary><pre>${s.text}</pre></details>
        </li>`;case"tool":return wn(s,a);case"error":return c`<li class="item error" role="note" data-seq=${s.seq}>
          <strong>Error (${s.code}): </strong>${s.message}
        </li>`;case"recovery":return c`<li class="item recovery" data-seq=${s.seq}>
          ${be(s)}
        </li>`;case"turn":return c`<li class="item turn" data-seq=${s.seq} data-reason=${s.reason}>turn ${s.reason}</li>`;case"record":return c`<li class="item record" data-seq=${s.seq}>
          Work record <code>${s.topic}</code>:
          ${s.revision!==void 0?`revision ${s.revision}`:`entry ${s.entry}`}
        </li>`;case"fork":return c`<li class="item fork" data-seq=${s.seq}>
          Forked from <a href="/s/${s.sessionId}" data-nav>${s.sessionId.slice(0,12)}…</a> at seq ${s.throughSeq}
        </li>`}}function wn(s,a){let h=s.startedAt!==void 0?V((s.endedAt??Date.now())-s.startedAt):void 0,S=st(s.args),q=c`<code class="tool-name">${s.tool}</code>
      <span class="badge" data-state=${s.state}>${s.state.replace("_"," ")}</span>
      ${h?c`<span class="muted duration">${h}${s.endedAt===void 0?"…":""}</span>`:y}
      ${s.recovery?c`<span class="badge recovery">${s.recovery==="rerun"?"re-run after restart":"needs review"}</span>`:y}`;if(a){let I=new TextEncoder().encode(JSON.stringify(s.args)??"").length,L=xn(a.requestId,s.args),z=L!==a.argsDigest,ft=L;return c`<li class="item tool approval-card" data-seq=${s.seq} data-state=${s.state}>
        <div class="tool-head">${q}</div>
        <div class="block">
          <span class="label">Arguments, ${We(I)} · digest <code>${a.argsDigest.slice(0,12)}…</code></span>
          <pre class="args" tabindex="0" aria-label="Arguments of ${s.tool}">${S}</pre>
        </div>
        ${z?c`<p class="error" role="alert">
              These arguments do not match the digest of the pending call: reload before deciding.
            </p>`:y}
        <div class="approval" role="group" aria-label=${`Approval for ${s.tool}`}>
          <span>This call needs your approval.</span>
          <button type="button" ?disabled=${z||L==="pending"} @click=${()=>{dt(a.requestId,"approve",ft)}}>Approve</button>
          <button type="button" class="danger" ?disabled=${L==="pending"} @click=${()=>{dt(a.requestId,"reject",ft)}}>
            Reject
          </button>
        </div>
      </li>`}return c`<li class="item tool" data-seq=${s.seq} data-state=${s.state}>
      <details>
        <summary class="tool-head">${q}</summary>
        ${Jt("Arguments",S)} ${s.response!==void 0?Jt("Response",st(s.response)):y}
      </details>
    </li>`}function xn(s,a){let h=f.get(s);if(h!==void 0)return h;let S=jt(a);return f.set(s,S),S}function _n(){if(b)return c`<p class="error" role="alert">${b}</p>`;if(!_)return c`<p class="muted">Loading the context…</p>`;let s=_,a=z=>`${(100*z/s.contextWindow).toFixed(1)}%`,h=JSON.stringify(s.messages),S=(h.match(/archive:\/\/[0-9a-f]{64}/g)??[]).length,q=u?.usage,I=q&&q.cachedInputTokens>0&&q.inputTokens>0?q.cachedInputTokens/q.inputTokens:null,L=s.estimatedTokens/s.threshold;return c`
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
            ${kn(s.checkpoint?.throughSeq??0,u?.highWater??l.lastSeq)}
          </dd>
          <dt>Offloaded results</dt>
          <dd>${S} tool result${S===1?"":"s"} replaced by an archive placeholder</dd>
          <dt>Prompt-cache hit rate</dt>
          <dd>
            ${I!==null?c`${(I*100).toFixed(1)}% of ${q.inputTokens.toLocaleString()} input tokens were cached`:c`<span class="muted">not reported by this provider</span>`}
          </dd>
          <dt>Messages</dt>
          <dd>${s.messages.length} messages, ${We(new TextEncoder().encode(h).length)}</dd>
        </dl>
        ${s.checkpoint?c`<details><summary>Checkpoint summary</summary><pre>${s.checkpoint.summary}</pre></details>`:y}
        <details><summary>Messages as the next call sends them</summary><pre>${st(s.messages)}</pre></details>
      </div>
    `}function kn(s,a){let h=a>0?100*s/a:0;return c`<div class="waterline" aria-hidden="true">
      <div class="summarised" style="width:${h.toFixed(1)}%"></div>
      <span class="muted">seq 1</span><span class="muted right">seq ${a}</span>
    </div>`}function Sn(){let s=T,a=s==="idle"?y:s==="running"?c`<span class="verify" role="status">verifying…</span>`:typeof s=="string"?c`<span class="verify bad" role="status">${s}</span>`:s.ok?c`<span class="verify ok" role="status">✓ verified ${s.highWater} events, head <code>${s.headDigest.slice(0,12)}…</code></span>`:c`<span class="verify bad" role="status">✗ ${s.problems.length} problem(s): ${s.problems.slice(0,3).join("; ")}</span>`,h=W,S=h?.events[0]?.seq??0,q=h?.events.at(-1)?.seq??0,I=Math.max(h?.highWater??0,u?.highWater??0);return c`
      <div class="toolbar">
        <button type="button" @click=${()=>{on()}}>Verify</button>
        <a href=${`/v1/sessions/${t}/export`} @click=${rn} download>Export</a>
        ${a}
      </div>
      ${Q?c`<p class="error" role="alert">${Q}</p>`:y}
      ${h?c`<div class="pager">
              <button type="button" ?disabled=${S<=1} @click=${()=>{Te(Math.max(0,(G??0)-nt))}}>Older</button>
              <span class="muted">seq ${S}–${q} of ${I}</span>
              <button type="button" ?disabled=${q>=I} @click=${()=>{Te(q)}}>Newer</button>
              <button type="button" class="link" @click=${()=>{Te(null)}}>Latest</button>
            </div>
            <div class="table-wrap">
              <table class="log">
                <thead><tr><th>seq</th><th>time</th><th>author</th><th>kind</th><th>digest</th></tr></thead>
                <tbody>
                  ${$e(h.events,L=>L.seq,L=>c`<tr data-seq=${L.seq}>
                      <td>${L.seq}</td>
                      <td><time datetime=${L.at}>${new Date(L.at).toLocaleTimeString()}</time></td>
                      <td>${L.author}</td>
                      <td><code>${Vt(L)}</code>${L.modelVisibility==="hidden"?c` <span class="muted">hidden</span>`:y}</td>
                      <td><code title=${L.digest}>${L.digest.slice(0,12)}</code></td>
                    </tr>`)}
                </tbody>
              </table>
            </div>`:c`<p class="muted">Loading the log…</p>`}
    `}function Tn(){if(ke)return c`<p class="error" role="alert">${ke}</p>`;if(!ae)return c`<p class="muted">Loading runs…</p>`;let s=u?.parentId;return c`
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
            </table>`}`}function An(){return D?c`<p class="error" role="alert">${D}</p>`:P?P.length===0?c`<p class="muted empty">The workspace is empty: files the agent writes appear here.</p>`:c`
      <div class="files">
        <ul class="file-list" aria-label="Workspace files">
          ${P.map(s=>c`<li>
              <button type="button" class="link" aria-current=${F?.path===s.path?"true":"false"} @click=${()=>{an(s.path)}}>${s.path}</button>
              <span class="muted">${We(s.bytes)} · ${new Date(s.updatedAt).toLocaleString()}</span>
            </li>`)}
          ${R?c`<li><button type="button" class="link" @click=${()=>{Ae(!0)}}>More</button></li>`:y}
        </ul>
        ${F?c`<article class="file" aria-label=${F.path}>
              <h2><code>${F.path}</code></h2>
              ${F.error?c`<p class="error">${F.error}</p>`:F.content===null?c`<p class="muted">Loading…</p>`:c`<pre class="file-content">${F.content}</pre>`}
            </article>`:c`<p class="muted">Open a file to read it.</p>`}
      </div>
    `:c`<p class="muted">Loading the workspace…</p>`}A(),(async()=>{try{let s=await e.getSession(t);if(d)return;le(s),Ge(),m=e.connect(t,{after:Math.max(0,s.highWater-Bn),onFrame:ln,onState:a=>{$=a,A()},onFatal:a=>{r(a)||(w=`Disconnected: ${o(a)}`),A()}})}catch(s){if(r(s))return;v=s instanceof N&&s.status===404?"No such session.":o(s),A()}})();let En=setInterval(()=>{(x==="timeline"||$!=="open"||l.items.some(s=>s.kind==="tool"&&s.state==="running"))&&A()},1e3);return()=>{d=!0,m?.close(),m=null,clearInterval(En),window.removeEventListener("hashchange",ct),window.removeEventListener("online",Se),window.removeEventListener("offline",Se),E&&cancelAnimationFrame(E),re(y,i)}}function st(n){return typeof n=="string"?n:JSON.stringify(n,null,2)??String(n)}function Jt(n,e){return e.length>Gn||e.split(`
`).length>12?c`<details class="block"><summary>${n} (${e.length} chars)</summary><pre>${e}</pre></details>`:c`<div class="block"><span class="label">${n}</span><pre>${e}</pre></div>`}function rt(n){return c`<span class="pill" data-status=${n}>${n.replace("_"," ")}</span>`}function it(n){return c`<span class="model"
    >${n.model.name}${n.model.provider==="demo"?c`<span class="demo" title="highwater's built-in offline model: deterministic, no API key">demo model</span>`:y}</span
  >`}function Yn(n){let e=n?.placement;return!e||!e.locationHint&&!e.jurisdiction?y:c`<span class="muted placement">${[e.jurisdiction&&`jurisdiction ${e.jurisdiction}`,e.locationHint&&`near ${e.locationHint}`].filter(Boolean).join(" · ")}</span>`}var Ue="highwater.token",ot="highwater.draft.",Jn=3e3,Qn=["wnam","enam","sam","weur","eeur","apac","oc","afr","me"],zn=["write_file","edit_file","delete_file","http_fetch"],Xn="Draft the release notes for version two",je=document.getElementById("app"),Zn=document.getElementById("top-actions"),we=null,ue=()=>{};function Xt(n){history.pushState(null,"",n),xe()}document.addEventListener("click",n=>{let e=n.target.closest?.("a[data-nav]");!e||n.defaultPrevented||n.button!==0||n.metaKey||n.ctrlKey||n.shiftKey||(n.preventDefault(),Xt(e.getAttribute("href")))});window.addEventListener("popstate",xe);function es(){return Array.from(crypto.getRandomValues(new Uint8Array(16)),n=>n.toString(16).padStart(2,"0")).join("")}function Ve(n){return n instanceof N?`${n.code}: ${n.message}`:String(n)}function Fe(n){return n instanceof N&&n.status===401?(ue(),ue=()=>{},sessionStorage.removeItem(Ue),we=null,Zt("That token was not accepted. Paste a valid API token."),!0):!1}function xe(){ue(),ue=()=>{};let n=sessionStorage.getItem(Ue);if(we=n?new ve({baseUrl:location.origin,token:n}):null,re(n?c`<button
          type="button"
          class="link"
          @click=${()=>{sessionStorage.removeItem(Ue),xe()}}
        >Forget token</button>`:y,Zn),!we)return Zt();let e=/^\/s\/([^/]+)\/?$/.exec(location.pathname);if(e){let t=decodeURIComponent(e[1]),i=sessionStorage.getItem(ot+t)??void 0;sessionStorage.removeItem(ot+t),ue=Qt({client:we,id:t,root:je,handleAuth:Fe,errorText:Ve,randomKey:es,...i?{draft:i}:{}})}else ue=ns(we)}function Zt(n){document.title="highwater";let e=n??"",t=()=>re(c`<form
        class="card"
        @submit=${async i=>{i.preventDefault();let o=i.currentTarget.querySelector("#token").value.trim();try{await new ve({baseUrl:location.origin,token:o}).listSessions({limit:1}),sessionStorage.setItem(Ue,o),xe()}catch(l){e=l instanceof N&&l.status===401?"That token was not accepted.":Ve(l),t()}}}
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
      </form>`,je);t(),je.querySelector("#token")?.focus()}var zt=()=>({title:"",system:"",provider:"",name:"",contextWindow:"",approve:new Set,approvePaths:"",locationHint:"",jurisdiction:""});function ts(n){let e=n.approvePaths.split(",").map(o=>o.trim()).filter(Boolean),t=new Set(["write_file","edit_file","delete_file"]),i=[...n.approve].map(o=>e.length&&t.has(o)?{tool:o,match:{path:e}}:{tool:o}),r={};return n.provider&&(r.provider=n.provider),n.name.trim()&&(r.name=n.name.trim()),n.contextWindow.trim()&&(r.contextWindow=Number(n.contextWindow)),{...n.title.trim()?{title:n.title.trim()}:{},...n.system.trim()?{system:n.system}:{},...Object.keys(r).length?{model:r}:{},...i.length?{approvals:i}:{},...n.locationHint?{locationHint:n.locationHint}:{},...n.jurisdiction?{jurisdiction:n.jurisdiction}:{}}}function ns(n){document.title="Sessions — highwater";let e=zt(),t=null,i="",r=!1,o=null,l,g=!1,p=0,f="",u,m=!1,$=()=>{m||re(x(),je)};async function v(){try{t=(await n.providers()).providers;let _=t.find(b=>b.isDefault)??t[0];_&&!e.provider&&(e.provider=_.name)}catch(_){Fe(_)||(t=[])}$()}async function w(_=!1){try{let b=await n.listSessions(_&&l?{before:l}:{});if(_)o=[...o??[],...b.sessions],l=b.next,g=!0;else{let M=new Set(b.sessions.map(G=>G.id)),W=g?(o??[]).slice(p).filter(G=>!M.has(G.id)):[];o=[...b.sessions,...W],p=b.sessions.length,g||(l=b.next)}f=""}catch(b){Fe(b)||(f=Ve(b))}$()}function E(){e={...zt(),provider:t?.find(_=>_.demo)?.name??e.provider,title:"Demo: release notes",approve:new Set(["write_file"]),approvePaths:"notes/task.md"},u=Xn,$()}async function d(_){_.preventDefault(),r=!0,i="",$();try{let b=await n.createSession(ts(e));u&&sessionStorage.setItem(ot+b.id,u),Xt(`/s/${b.id}`)}catch(b){Fe(b)||(i=Ve(b)),r=!1,$()}}let k=_=>b=>{e={...e,[_]:b.target.value},$()},x=()=>{let _=t?.find(b=>b.name===e.provider);return c`
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
              <input id="new-model" placeholder=${_?.defaultModel??"the provider's default"} .value=${e.name} @input=${k("name")} />
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
            ${zn.map(b=>c`<label class="check"><input
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
                ${Qn.map(b=>c`<option value=${b} ?selected=${b===e.locationHint}>${b}</option>`)}
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
        <p class="error" role="alert">${i}</p>
      </form>
      <h2>Sessions</h2>
      ${O()}
    `},O=()=>f&&!o?c`<p class="error" role="alert">${f}</p>`:o?o.length===0?c`<p class="muted empty">No sessions yet. Start one above: the Demo preset works offline, with no API key.</p>`:c`<ul class="sessions" aria-label="Your sessions">
      ${$e(o,_=>_.id,_=>c`<li data-id=${_.id}>
          <a href=${`/s/${_.id}`} data-nav>${_.title||"Untitled session"}</a>
          ${rt(_.status)} ${_.openTurn?c`<span class="badge">turn open</span>`:y}
          ${_.pendingApprovals.length?c`<span class="badge approvals" data-state="waiting_approval">${_.pendingApprovals.length} approval${_.pendingApprovals.length===1?"":"s"} waiting</span>`:y}
          ${it(_)}
          <span class="muted">${_.highWater} events · updated ${new Date(_.updatedAt).toLocaleString()}</span>
        </li>`)}
      ${l?c`<li><button type="button" class="link" @click=${()=>{w(!0)}}>More</button></li>`:y}
    </ul>
    ${f?c`<p class="error" role="alert">${f}</p>`:y}`:c`<p class="muted">Loading…</p>`;$(),v(),w();let H=setInterval(()=>{document.visibilityState==="visible"&&w()},Jn);return()=>{m=!0,clearInterval(H)}}xe();export{ts as formOptions};
